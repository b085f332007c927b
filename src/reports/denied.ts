import type { ReportDefinition } from './report.js';
import { deniedRecords } from './sql.js';

/**
 * finance_denied_records: sales and withdrawals the gateway denied (404 or 403 in shape B,
 * confirmed by a second read). They are out of every other finance view until an authentic
 * observation restores them. The day filtered on is the São Paulo day they were denied.
 */
export const deniedReport: ReportDefinition = {
  name: 'denied',
  view: 'finance_denied_records',
  columns: [
    { key: 'resource_type', label: 'record', kind: 'text' },
    { key: 'resource_id', label: 'id', kind: 'integer' },
    { key: 'status', label: 'status', kind: 'text' },
    { key: 'amount_cents', label: 'amount', kind: 'cents' },
    { key: 'created_at', label: 'created', kind: 'timestamp' },
    { key: 'denied_at', label: 'denied', kind: 'timestamp' },
    { key: 'reason', label: 'reason', kind: 'text' },
  ],
  query: deniedRecords,
};
