import type { ReportDefinition } from './report.js';
import { withdrawalsDaily } from './sql.js';

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
  query: withdrawalsDaily,
};
