import type { ReportDefinition } from './report.js';

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
  query: (sql, { from, to }) => sql`
    select to_char(day, 'YYYY-MM-DD') as day, run_id, trigger, run_status,
           started_at, finished_at, source, resource_type, field, action, discrepancy_count
      from finance_discrepancies_by_run
     where (${from}::date is null or day >= ${from}::date)
       and (${to}::date is null or day <= ${to}::date)
     order by finance_discrepancies_by_run.day, finance_discrepancies_by_run.run_id nulls last,
              source, resource_type, field, action`,
};
