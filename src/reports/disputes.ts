import type { ReportDefinition } from './report.js';
import { disputes } from './sql.js';

/**
 * finance_disputes: one row per dispute (MED or CHARGEBACK) a sale went through, the open ones
 * and the ended ones, including disputes observed after the mirror had already moved past them.
 * The day filtered on is the São Paulo day the dispute was observed to open.
 */
export const disputesReport: ReportDefinition = {
  name: 'disputes',
  view: 'finance_disputes',
  columns: [
    { key: 'sale_id', label: 'sale', kind: 'integer' },
    { key: 'payment_method', label: 'method', kind: 'text' },
    { key: 'dispute', label: 'dispute', kind: 'text' },
    { key: 'opened_at', label: 'opened', kind: 'timestamp' },
    { key: 'resolution', label: 'ended as', kind: 'text' },
    { key: 'current_status', label: 'now', kind: 'text' },
    { key: 'amount_cents', label: 'amount', kind: 'cents' },
    { key: 'net_amount_cents', label: 'net', kind: 'cents' },
    { key: 'reserve_amount_cents', label: 'reserve', kind: 'cents' },
  ],
  query: disputes,
};
