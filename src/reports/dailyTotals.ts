import type { ReportDefinition } from './report.js';
import { dailyTotals } from './sql.js';

/** finance_daily_totals: sales per São Paulo day, payment method and status. */
export const dailyTotalsReport: ReportDefinition = {
  name: 'daily',
  view: 'finance_daily_totals',
  columns: [
    { key: 'day', label: 'day', kind: 'day' },
    { key: 'payment_method', label: 'method', kind: 'text' },
    { key: 'status', label: 'status', kind: 'text' },
    { key: 'sale_count', label: 'sales', kind: 'integer' },
    { key: 'gross_cents', label: 'gross', kind: 'cents' },
    { key: 'net_cents', label: 'net', kind: 'cents' },
    { key: 'net_unknown_count', label: 'net unknown', kind: 'integer' },
    { key: 'system_fee_cents', label: 'fee', kind: 'cents' },
  ],
  query: dailyTotals,
};
