import type { Sql } from '../db/client.js';

/**
 * Where `paymirror mirror sale|withdrawal` gets a record's journal entries (the books,
 * ledger_entries). Null while the books are not wired in: the section is left out. Whoever
 * wires them replaces this with the books' own read of one record's entries, oldest first.
 */
export type JournalEntriesOf = (
  sql: Sql,
  resourceType: 'sale' | 'withdrawal',
  id: number,
) => Promise<readonly object[]> | null;

export const journalEntriesOf: JournalEntriesOf = () => null;
