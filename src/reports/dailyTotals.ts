import type { ReportDefinition } from './report.js';
import { dailyTotals } from './sql.js';

/**
 * finance_daily_totals: sales per São Paulo day, payment method and status; net and fee blank
 * (null) while awaiting the gateway's read, with a note saying so.
 */
export const dailyTotalsReport: ReportDefinition = {
  name: 'daily',
  view: 'finance_daily_totals',
  columns: [
    { key: 'day', label: 'day', kind: 'day' },
    { key: 'payment_method', label: 'method', kind: 'text' },
    { key: 'status', label: 'status', kind: 'text' },
    { key: 'sale_count', label: 'sales', kind: 'integer' },
    { key: 'gross_cents', label: 'gross', kind: 'cents' },
    // Blank, not R$ 0,00, while no sale of the row has been read; the note says why.
    { key: 'net_cents', label: 'net', kind: 'cents', absent: '' },
    { key: 'system_fee_cents', label: 'fee', kind: 'cents', absent: '' },
    { key: 'note', label: 'note', kind: 'text', absent: '' },
  ],
  query: dailyTotals,
};
