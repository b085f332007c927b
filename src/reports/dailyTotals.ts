import type { ReportDefinition } from './report.js';

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
    { key: 'system_fee_cents', label: 'system fee', kind: 'cents' },
    { key: 'fee_cents', label: 'fee', kind: 'cents' },
  ],
  query: (sql, { from, to }) => sql`
    select to_char(day, 'YYYY-MM-DD') as day, payment_method, status, sale_count, gross_cents,
           net_cents, net_unknown_count, system_fee_cents, fee_cents
      from finance_daily_totals
     where (${from}::date is null or day >= ${from}::date)
       and (${to}::date is null or day <= ${to}::date)
     order by finance_daily_totals.day nulls last, payment_method, status`,
};
