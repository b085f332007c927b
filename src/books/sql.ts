import type { Fragment, Sql, Tx } from '../db/client.js';
import type { Balances, ResourceType } from './ledgerRules.js';

/**
 * The books' statements: `ledger_entries` (the journal), `ledger_closes`, `ledger_closed_days`
 * and the `finance_journal_daily` view (docs/finance.md, "The journal"). Days are calendar days
 * in America/Sao_Paulo, named in every statement so the session's TimeZone never moves one.
 */

/**
 * Writers share this lock for their transaction; a close takes it alone, so it waits for every
 * writer in flight and none books while it runs: an entry can never land in a day as it closes.
 */
const BOOKS_LOCK_KEY = 7_246_113;

/** The writer's share of the books' lock; sent first, before any mirror row is locked. */
export function shareBooks(tx: Tx): Promise<unknown> {
  return tx`select pg_advisory_xact_lock_shared(${BOOKS_LOCK_KEY}::int8)`.execute();
}

export interface RecordIds {
  readonly sale: readonly number[];
  readonly withdrawal: readonly number[];
}

export interface BookedRow extends Balances {
  readonly resourceType: ResourceType;
  readonly resourceId: number;
}

/** What the journal holds, per account, for these records (those with entries). */
export function bookedFor(tx: Tx, records: RecordIds): Promise<BookedRow[]> {
  return tx<BookedRow[]>`
    ${bookedSums(tx)}
     where (resource_type = 'sale' and resource_id = any(${[...records.sale]}::int8[]))
        or (resource_type = 'withdrawal' and resource_id = any(${[...records.withdrawal]}::int8[]))
     group by 1, 2`.execute();
}

/** Each record's sums per account; the caller adds its filter and `group by 1, 2`. */
function bookedSums(sql: Sql | Tx): Fragment {
  return sql`
    select resource_type as "resourceType", resource_id as "resourceId",
           coalesce(sum(amount_cents) filter (where account = 'available'), 0)::int8 as available,
           coalesce(sum(amount_cents) filter (where account = 'reserved'), 0)::int8 as reserved
      from ledger_entries`;
}

/** Every record's sums, for `books check`. */
export function allBooked(sql: Sql): Promise<BookedRow[]> {
  return sql<BookedRow[]>`
    ${bookedSums(sql)}
     group by 1, 2
     order by 1, 2`.execute();
}

/** An entry as the writer gives it, before it is placed in an open day. */
export interface EntryToBook {
  readonly resourceType: ResourceType;
  readonly resourceId: number;
  readonly account: string;
  readonly amountCents: number;
  readonly effectiveAt: Date;
  readonly kind: string;
  readonly source: string;
  readonly paymentMethod: string | null;
}

/**
 * Appends entries in the order given. One whose effective time falls in a closed day is booked at
 * the start of the first open day as an `adjustment`, keeping its own time and kind and naming
 * the record's latest entry on that account: a closed day never changes.
 */
export function insertEntries(tx: Tx, entries: readonly EntryToBook[]): Promise<unknown> {
  if (entries.length === 0) return Promise.resolve();
  const rows = entries.map((entry, ord) => ({
    ord,
    resource_type: entry.resourceType,
    resource_id: entry.resourceId,
    account: entry.account,
    amount_cents: entry.amountCents,
    effective_at: entry.effectiveAt.toISOString(),
    kind: entry.kind,
    source: entry.source,
    payment_method: entry.paymentMethod,
  }));
  return tx`
    insert into ledger_entries (resource_type, resource_id, account, amount_cents, effective_at,
                                kind, source, payment_method, corrects_entry_id,
                                original_effective_at, original_kind)
    select e.resource_type, e.resource_id, e.account, e.amount_cents,
           case when l.late then l.first_open else e.effective_at end,
           case when l.late then 'adjustment' else e.kind end,
           e.source, e.payment_method,
           case when l.late then (select max(p.id) from ledger_entries p
                                   where p.resource_type = e.resource_type
                                     and p.resource_id = e.resource_id
                                     and p.account = e.account) end,
           case when l.late then e.effective_at end,
           case when l.late then e.kind end
      from json_to_recordset(${JSON.stringify(rows)}::json) as e(
             ord int, resource_type text, resource_id int8, account text, amount_cents int8,
             effective_at timestamptz, kind text, source text, payment_method text)
      left join lateral (
             select closed_through from ledger_closes order by id desc limit 1) c on true
     cross join lateral (
             select c.closed_through is not null
                    and (e.effective_at at time zone 'America/Sao_Paulo')::date <= c.closed_through
                    as late,
                    ((c.closed_through + 1)::timestamp at time zone 'America/Sao_Paulo') as first_open
           ) l
     order by e.ord`.execute();
}

/** The last closed day (YYYY-MM-DD), or null when none is. */
export async function closedThrough(sql: Sql | Tx): Promise<string | null> {
  const [row] = await sql<{ closedThrough: string | null }[]>`
    select to_char(closed_through, 'YYYY-MM-DD') as "closedThrough"
      from ledger_closes order by id desc limit 1`;
  return row?.closedThrough ?? null;
}

/** A day's entries as a digest: any entry added to it, or changed, changes the digest. */
function dayDigests(sql: Sql | Tx) {
  return sql`
    select (effective_at at time zone 'America/Sao_Paulo')::date as day,
           count(*)::int as entry_count,
           sum(amount_cents)::int8 as amount_cents,
           md5(string_agg(concat_ws(':', id, resource_type, resource_id, account, amount_cents,
                                    kind, payment_method, extract(epoch from effective_at)),
                          ',' order by id)) as digest
      from ledger_entries
     group by 1`;
}

/**
 * Closes every day through `day`, under the books' lock held alone: each closed day's entries are
 * kept as a digest. Closing a day already closed changes nothing. The day the books are closed
 * through afterwards.
 */
export function closeThrough(sql: Sql, day: string): Promise<string> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${BOOKS_LOCK_KEY}::int8)`;
    const through = await closedThrough(tx);
    if (through !== null && through >= day) return through;
    await tx`
      insert into ledger_closed_days (day, entry_count, amount_cents, digest)
      select d.day, d.entry_count, d.amount_cents, d.digest from (${dayDigests(tx)}) d
       where d.day <= ${day}::date
         and (${through}::date is null or d.day > ${through}::date)`;
    await tx`insert into ledger_closes (action, day, closed_through)
             values ('close', ${day}::date, ${day}::date)`;
    return day;
  }) as Promise<string>;
}

/**
 * Reopens `day` and every later closed day, recording why: their entries may change again until
 * they are closed again. The day the books are closed through afterwards (null: none).
 */
export function reopenFrom(sql: Sql, day: string, reason: string): Promise<string | null> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${BOOKS_LOCK_KEY}::int8)`;
    const through = await closedThrough(tx);
    const after = through !== null && through >= day ? previousDay(day) : through;
    await tx`delete from ledger_closed_days where day >= ${day}::date`;
    await tx`insert into ledger_closes (action, day, closed_through, reason)
             values ('reopen', ${day}::date, ${after}::date, ${reason})`;
    return after;
  }) as Promise<string | null>;
}

function previousDay(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - 1);
  return date.toISOString().slice(0, 10);
}

export interface ClosedDayDifference {
  readonly day: string;
  readonly closedCount: number;
  readonly closedAmountCents: number;
  readonly countNow: number;
  readonly amountNowCents: number;
}

/** Closed days whose entries are not what they were at the close. */
export function changedClosedDays(sql: Sql): Promise<ClosedDayDifference[]> {
  return sql<ClosedDayDifference[]>`
    with now_days as (${dayDigests(sql)}),
         through as (select closed_through from ledger_closes order by id desc limit 1)
    select to_char(coalesce(k.day, n.day), 'YYYY-MM-DD') as day,
           coalesce(k.entry_count, 0) as "closedCount",
           coalesce(k.amount_cents, 0)::int8 as "closedAmountCents",
           coalesce(n.entry_count, 0) as "countNow",
           coalesce(n.amount_cents, 0)::int8 as "amountNowCents"
      from (select * from ledger_closed_days
             where day <= (select closed_through from through)) k
      full join (select * from now_days
                  where day <= (select closed_through from through)) n on n.day = k.day
     where k.digest is distinct from n.digest
     order by 1`.execute();
}

export type JournalDayRow = {
  readonly day: string;
  readonly account: string;
  readonly kind: string;
  readonly payment_method: string | null;
  readonly entry_count: number;
  readonly amount_cents: number;
};

/** finance_journal_daily for a range of days (null: open-ended). */
export function journalDaily(
  sql: Sql,
  from: string | null,
  to: string | null,
): Promise<JournalDayRow[]> {
  return sql<JournalDayRow[]>`
    select to_char(day, 'YYYY-MM-DD') as day, account, kind, payment_method, entry_count,
           amount_cents
      from finance_journal_daily
     where (${from}::date is null or day >= ${from}::date)
       and (${to}::date is null or day <= ${to}::date)
     order by finance_journal_daily.day, account, kind, payment_method nulls last`.execute();
}

/** What the journal says each account held at `at`: entries effective at or before it. */
export async function balanceAt(sql: Sql, at: Date): Promise<Balances & { entryCount: number }> {
  const [row] = await sql<(Balances & { entryCount: number })[]>`
    select coalesce(sum(amount_cents) filter (where account = 'available'), 0)::int8 as available,
           coalesce(sum(amount_cents) filter (where account = 'reserved'), 0)::int8 as reserved,
           count(*)::int as "entryCount"
      from ledger_entries
     where effective_at <= ${at}`;
  return row ?? { available: 0, reserved: 0, entryCount: 0 };
}

export interface JournalEntry {
  readonly id: number;
  readonly day: string;
  readonly effective_at: Date;
  readonly account: string;
  readonly kind: string;
  readonly amount_cents: number;
  readonly resource_type: ResourceType;
  readonly resource_id: number;
  readonly payment_method: string | null;
  readonly source: string;
  readonly corrects_entry_id: number | null;
  readonly original_effective_at: Date | null;
  readonly original_kind: string | null;
  readonly recorded_at: Date;
}

/** One record's entries, in the order they were booked. */
export function journalFor(
  sql: Sql,
  resourceType: ResourceType,
  resourceId: number,
): Promise<JournalEntry[]> {
  return sql<JournalEntry[]>`
    select id, to_char((effective_at at time zone 'America/Sao_Paulo')::date, 'YYYY-MM-DD') as day,
           effective_at, account, kind, amount_cents, resource_type, resource_id, payment_method,
           source, corrects_entry_id, original_effective_at, original_kind, recorded_at
      from ledger_entries
     where resource_type = ${resourceType} and resource_id = ${resourceId}
     order by id`.execute();
}

/** Every entry of a range of days (by effective day), in booking order: the export. */
export function journalEntries(
  sql: Sql,
  from: string | null,
  to: string | null,
): Promise<JournalEntry[]> {
  return sql<JournalEntry[]>`
    select id, to_char((effective_at at time zone 'America/Sao_Paulo')::date, 'YYYY-MM-DD') as day,
           effective_at, account, kind, amount_cents, resource_type, resource_id, payment_method,
           source, corrects_entry_id, original_effective_at, original_kind, recorded_at
      from ledger_entries
     where (${from}::date is null
            or (effective_at at time zone 'America/Sao_Paulo')::date >= ${from}::date)
       and (${to}::date is null
            or (effective_at at time zone 'America/Sao_Paulo')::date <= ${to}::date)
     order by id`.execute();
}
