import type { Sql } from '../db/client.js';
import {
  ACCOUNTS,
  ZERO,
  impliedBalances,
  type RecordState,
  type ResourceType,
} from './ledgerRules.js';
import { allBooked, changedClosedDays, type ClosedDayDifference } from './sql.js';

/** A record whose entries do not sum to what its state implies on an account. */
interface UntiedRecord {
  readonly resourceType: ResourceType;
  readonly id: number;
  readonly account: string;
  readonly expectedCents: number;
  readonly bookedCents: number;
}

export interface BooksCheck {
  readonly records: number;
  readonly untied: readonly UntiedRecord[];
  readonly changedClosedDays: readonly ClosedDayDifference[];
}

export function tiesOut(check: BooksCheck): boolean {
  return check.untied.length === 0 && check.changedClosedDays.length === 0;
}

/**
 * Compares every record's entries with what its state implies (`states`: the mirror's records,
 * as its owner reads them), and every closed day with what it held when closed. A record the
 * journal knows and the mirror does not is expected to hold nothing.
 */
export async function checkBooks(
  sql: Sql,
  states: readonly (RecordState & { readonly id: number })[],
): Promise<BooksCheck> {
  const [booked, changed] = await Promise.all([allBooked(sql), changedClosedDays(sql)]);
  const sums = new Map(booked.map((row) => [`${row.resourceType}:${row.resourceId}`, row]));
  const untied: UntiedRecord[] = [];
  const seen = new Set<string>();
  const compare = (resourceType: ResourceType, id: number, state: RecordState | null) => {
    const key = `${resourceType}:${id}`;
    seen.add(key);
    const expected = impliedBalances(state);
    const actual = sums.get(key) ?? ZERO;
    for (const account of ACCOUNTS) {
      if (expected[account] !== actual[account]) {
        untied.push({
          resourceType,
          id,
          account,
          expectedCents: expected[account],
          bookedCents: actual[account],
        });
      }
    }
  };
  for (const state of states) compare(state.resourceType, state.id, state);
  for (const row of booked) {
    if (!seen.has(`${row.resourceType}:${row.resourceId}`)) {
      compare(row.resourceType, row.resourceId, null);
    }
  }
  return { records: seen.size, untied, changedClosedDays: changed };
}
