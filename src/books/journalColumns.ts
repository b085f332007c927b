import type { Column, ReportRow } from '../reports/columns.js';
import type { JournalEntry } from './sql.js';

/** `books report`: finance_journal_daily's columns. */
export const journalColumns: readonly Column[] = [
  { key: 'day', label: 'day', kind: 'day' },
  { key: 'account', label: 'account', kind: 'text' },
  { key: 'kind', label: 'kind', kind: 'text' },
  { key: 'payment_method', label: 'method', kind: 'text' },
  { key: 'entry_count', label: 'entries', kind: 'integer' },
  { key: 'amount_cents', label: 'amount', kind: 'cents' },
];

/** `books export`: one line per entry (documented in docs/finance.md, "Exporting the journal"). */
export const journalExportColumns: readonly Column[] = [
  { key: 'entry_id', label: 'entry_id', kind: 'integer' },
  { key: 'day', label: 'day', kind: 'day' },
  { key: 'effective_at', label: 'effective_at', kind: 'timestamp' },
  { key: 'account', label: 'account', kind: 'text' },
  { key: 'kind', label: 'kind', kind: 'text' },
  { key: 'amount_cents', label: 'amount_cents', kind: 'cents' },
  { key: 'resource_type', label: 'resource_type', kind: 'text' },
  { key: 'resource_id', label: 'resource_id', kind: 'integer' },
  { key: 'payment_method', label: 'payment_method', kind: 'text' },
  { key: 'source', label: 'source', kind: 'text' },
  { key: 'corrects_entry_id', label: 'corrects_entry_id', kind: 'integer' },
  { key: 'original_effective_at', label: 'original_effective_at', kind: 'timestamp' },
  { key: 'original_kind', label: 'original_kind', kind: 'text' },
  { key: 'recorded_at', label: 'recorded_at', kind: 'timestamp' },
];

export function exportRow(entry: JournalEntry): ReportRow {
  return {
    entry_id: entry.id,
    day: entry.day,
    effective_at: entry.effective_at.toISOString(),
    account: entry.account,
    kind: entry.kind,
    amount_cents: entry.amount_cents,
    resource_type: entry.resource_type,
    resource_id: entry.resource_id,
    payment_method: entry.payment_method,
    source: entry.source,
    corrects_entry_id: entry.corrects_entry_id,
    original_effective_at: entry.original_effective_at?.toISOString() ?? null,
    original_kind: entry.original_kind,
    recorded_at: entry.recorded_at.toISOString(),
  };
}
