import type { Tx } from '../db/client.js';
import {
  ZERO,
  entriesFor,
  type Balances,
  type EntryKind,
  type RecordState,
  type ResourceType,
} from './ledgerRules.js';
import { bookedFor, insertEntries, type EntryToBook, type RecordIds } from './sql.js';

/** A record as the writer left it, with what the journal needs besides its state. */
export interface BookedRecord {
  readonly state: RecordState;
  readonly paymentMethod: string | null;
  /** When the current status was first observed (null: unknown). */
  readonly statusObservedAt: Date | null;
  /** A sale's payment time, from the gateway's read. */
  readonly completedAt: Date | null;
  readonly deniedAt: Date | null;
}

export interface RecordChange {
  readonly resourceType: ResourceType;
  readonly id: number;
  readonly before: BookedRecord | null;
  readonly after: BookedRecord;
  /** Where the change came from (the history's source). */
  readonly source: string;
}

const key = (resourceType: ResourceType, id: number) => `${resourceType}:${id}`;

/** The journal's sums for these records, by `resource:id`. */
export async function loadBooked(tx: Tx, records: RecordIds): Promise<Map<string, Balances>> {
  if (records.sale.length + records.withdrawal.length === 0) return new Map();
  const rows = await bookedFor(tx, records);
  return new Map(rows.map((row) => [key(row.resourceType, row.resourceId), row]));
}

/** When the money of an entry of this kind moved. */
function effectiveAt(kind: EntryKind, record: BookedRecord, now: Date): Date {
  switch (kind) {
    case 'payment':
    case 'fee_adjustment':
      return record.completedAt ?? record.statusObservedAt ?? now;
    case 'denial':
      return record.deniedAt ?? now;
    case 'correction':
      return now;
    default:
      return record.statusObservedAt ?? now;
  }
}

/**
 * The entries that make each changed record's journal sum to what its new state implies (the
 * rules: ledgerRules.ts), with their effective times.
 */
function entriesToBook(
  booked: ReadonlyMap<string, Balances>,
  changes: readonly RecordChange[],
  now: Date,
): EntryToBook[] {
  return changes.flatMap((change) =>
    entriesFor(
      booked.get(key(change.resourceType, change.id)) ?? ZERO,
      change.before?.state ?? null,
      change.after.state,
    ).map((entry): EntryToBook => ({
      resourceType: change.resourceType,
      resourceId: change.id,
      account: entry.account,
      amountCents: entry.amountCents,
      kind: entry.kind,
      effectiveAt: effectiveAt(entry.kind, change.after, now),
      source: change.source,
      paymentMethod: change.after.paymentMethod,
    })),
  );
}

/** Books the changes in the writer's transaction (its records locked, the books' lock shared). */
export function bookChanges(
  tx: Tx,
  booked: ReadonlyMap<string, Balances>,
  changes: readonly RecordChange[],
  now: Date,
): Promise<unknown> {
  return insertEntries(tx, entriesToBook(booked, changes, now));
}
