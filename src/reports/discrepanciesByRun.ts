import type { ReportDefinition } from './report.js';
import { discrepanciesByRun } from './sql.js';

/**
 * finance_discrepancies_by_run: counts per run (the São Paulo day it started) and, under a
 * null run, per day the cross-channel disagreements were detected.
 */
export const discrepanciesByRunReport: ReportDefinition = {
  name: 'discrepancies',
  view: 'finance_discrepancies_by_run',
  columns: [
    { key: 'day', label: 'day', kind: 'day' },
    { key: 'run_id', label: 'run', kind: 'integer' },
    { key: 'trigger', label: 'trigger', kind: 'text' },
    { key: 'run_status', label: 'run status', kind: 'text' },
    { key: 'started_at', label: 'started', kind: 'timestamp' },
    { key: 'finished_at', label: 'finished', kind: 'timestamp' },
    { key: 'source', label: 'source', kind: 'text' },
    { key: 'resource_type', label: 'resource', kind: 'text' },
    { key: 'field', label: 'field', kind: 'text' },
    { key: 'action', label: 'action', kind: 'text' },
    { key: 'discrepancy_count', label: 'count', kind: 'integer' },
  ],
  query: discrepanciesByRun,
};
