import type { ReportDefinition } from './report.js';

/** finance_withdrawals_daily: withdrawals per São Paulo day and status. */
export const withdrawalsDailyReport: ReportDefinition = {
  name: 'withdrawals',
  view: 'finance_withdrawals_daily',
  columns: [
    { key: 'day', label: 'day', kind: 'day' },
    { key: 'status', label: 'status', kind: 'text' },
    { key: 'withdrawal_count', label: 'withdrawals', kind: 'integer' },
    { key: 'amount_cents', label: 'amount', kind: 'cents' },
    { key: 'net_amount_cents', label: 'net', kind: 'cents' },
    { key: 'fee_total_cents', label: 'fees', kind: 'cents' },
  ],
  query: (sql, { from, to }) => sql`
    select to_char(day, 'YYYY-MM-DD') as day, status, withdrawal_count, amount_cents,
           net_amount_cents, fee_total_cents
      from finance_withdrawals_daily
     where (${from}::date is null or day >= ${from}::date)
       and (${to}::date is null or day <= ${to}::date)
     order by finance_withdrawals_daily.day nulls last, status`,
};
