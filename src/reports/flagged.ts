import type { ReportDefinition } from './report.js';
import { flaggedRecords } from './sql.js';

/**
 * finance_flagged_records: records whose final status, set by a signed postback or a confirmed
 * webhook, the gateway's reads kept contradicting (docs/reconciliation.md): an operator decides.
 * The day filtered on is the São Paulo day they were flagged.
 */
export const flaggedReport: ReportDefinition = {
  name: 'flagged',
  view: 'finance_flagged_records',
  columns: [
    { key: 'resource_type', label: 'record', kind: 'text' },
    { key: 'resource_id', label: 'id', kind: 'integer' },
    { key: 'status', label: 'status', kind: 'text' },
    { key: 'status_set_by', label: 'set by', kind: 'text' },
    { key: 'disagreeing_reads', label: 'reads against', kind: 'integer' },
    { key: 'flagged_at', label: 'flagged', kind: 'timestamp' },
    { key: 'flag_reason', label: 'reason', kind: 'text' },
  ],
  query: flaggedRecords,
};
