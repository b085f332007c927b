import type { Sql } from '../db/client.js';
import { selectFields } from '../db/jsonRows.js';
import type { CashoutAttemptRow } from '../db/rows.js';
import { cashoutAttempts } from '../db/schema.js';

/** The statements on `cashout_attempts`. */

export type CashoutOutcome = 'pending' | 'succeeded' | 'rejected' | 'unknown' | 'not_paid';

/**
 * Records an attempt before its POST is sent; returns its id, or null when an earlier attempt's
 * outcome is still pending or unknown (never for a forced one). The unique partial index
 * `cashout_attempts_one_unresolved` decides between two unforced inserts at once; the
 * `not exists` also counts forced attempts left unresolved. A forced one (`--force`, the
 * operator's explicit choice) is recorded whatever else is unresolved.
 */
export async function insertAttempt(
  sql: Sql,
  request: {
    readonly amountCents: number;
    readonly pixKey: string;
    readonly pixKeyType: string | null;
    readonly forced: boolean;
  },
): Promise<number | null> {
  const values = sql`${request.amountCents}::bigint, ${request.pixKey}::text, ${request.pixKeyType}::text`;
  const [attempt] = request.forced
    ? await sql<{ id: number }[]>`
        insert into cashout_attempts (amount_cents, pix_key, pix_key_type, forced)
        values (${values}, true)
        returning id`
    : await sql<{ id: number }[]>`
        insert into cashout_attempts (amount_cents, pix_key, pix_key_type)
        select ${values}
         where not exists (select 1 from cashout_attempts where outcome in ('pending', 'unknown'))
        on conflict do nothing
        returning id`;
  return attempt?.id ?? null;
}

/** The oldest attempt whose outcome is pending or unknown, if any. */
export async function oldestUnresolvedAttempt(sql: Sql): Promise<CashoutAttemptRow | null> {
  const [attempt] = await sql<CashoutAttemptRow[]>`
    select ${selectFields(sql, cashoutAttempts)} from cashout_attempts
     where outcome in ('pending', 'unknown')
     order by id limit 1`;
  return attempt ?? null;
}

/** The attempts with this outcome (any, when null), newest first. */
export function listAttempts(
  sql: Sql,
  outcome: CashoutOutcome | null,
  limit: number,
): Promise<CashoutAttemptRow[]> {
  return sql<CashoutAttemptRow[]>`
    select ${selectFields(sql, cashoutAttempts)} from cashout_attempts
     where ${outcome === null ? sql`true` : sql`outcome = ${outcome}`}
     order by id desc limit ${limit}`;
}

export async function attemptById(sql: Sql, id: number): Promise<CashoutAttemptRow | null> {
  const [attempt] = await sql<CashoutAttemptRow[]>`
    select ${selectFields(sql, cashoutAttempts)} from cashout_attempts where id = ${id}`;
  return attempt ?? null;
}

/** The gateway paid it: the withdrawal it created. */
export async function attemptSucceeded(sql: Sql, id: number, withdrawalId: number): Promise<void> {
  await sql`
    update cashout_attempts
       set outcome = 'succeeded', withdrawal_id = ${withdrawalId}, finished_at = now()
     where id = ${id}`;
}

/** The gateway refused it, or gave no clear answer (`unknown`: it may have paid). */
export async function attemptFailed(
  sql: Sql,
  id: number,
  failure: {
    readonly outcome: 'rejected' | 'unknown';
    readonly detail: string;
    readonly rawAnswer: string | null;
  },
): Promise<void> {
  await sql`
    update cashout_attempts
       set outcome = ${failure.outcome}, detail = ${failure.detail},
           raw_answer = ${failure.rawAnswer}, finished_at = now()
     where id = ${id}`;
}

/**
 * What an operator found of an attempt still pending or unknown; null when it was resolved
 * meanwhile.
 */
export async function resolveAttempt(
  sql: Sql,
  id: number,
  found: { readonly kind: 'paid'; readonly withdrawalId: number } | { readonly kind: 'not_paid' },
): Promise<CashoutAttemptRow | null> {
  const [resolved] = await sql<CashoutAttemptRow[]>`
    update cashout_attempts
       set ${
         found.kind === 'paid'
           ? sql`outcome = 'succeeded', withdrawal_id = ${found.withdrawalId}`
           : sql`outcome = 'not_paid'`
       }, finished_at = now()
     where id = ${id} and outcome in ('unknown', 'pending')
    returning ${selectFields(sql, cashoutAttempts)}`;
  return resolved ?? null;
}

/** Attempts nobody has settled: unknown ones, and pending ones over 5 minutes old. */
export async function unresolvedAttemptCounts(sql: Sql): Promise<Record<string, number>> {
  const rows = await sql<{ outcome: string; n: number }[]>`
    select outcome, count(*)::int as n from cashout_attempts
     where outcome in ('pending', 'unknown')
       and (outcome = 'unknown' or requested_at < now() - interval '5 minutes')
     group by outcome`;
  return Object.fromEntries(rows.map((row) => [row.outcome, row.n]));
}

export interface CashoutAttemptListRow {
  readonly id: number;
  readonly requested_at: Date;
  readonly amount_cents: number;
  readonly pix_key: string;
  readonly pix_key_type: string | null;
  readonly outcome: string;
  readonly withdrawal_id: number | null;
  readonly detail: string | null;
  readonly finished_at: Date | null;
}

function cashoutColumns(sql: Sql) {
  return sql`id, requested_at, amount_cents, pix_key, pix_key_type, outcome, withdrawal_id,
             detail, finished_at`;
}

/** cashout_attempts whose outcome is pending or unknown (a decision is due), oldest first. */
export function undecidedCashoutAttempts(
  sql: Sql,
  limit: number,
): Promise<CashoutAttemptListRow[]> {
  return sql<CashoutAttemptListRow[]>`
    select ${cashoutColumns(sql)}
      from cashout_attempts
     where outcome in ('pending', 'unknown')
     order by id
     limit ${limit}`;
}

/** cashout_attempts whose outcome is known, newest first. */
export function settledCashoutAttempts(
  sql: Sql,
  page: { readonly beforeId: number | null; readonly limit: number },
): Promise<CashoutAttemptListRow[]> {
  return sql<CashoutAttemptListRow[]>`
    select ${cashoutColumns(sql)}
      from cashout_attempts
     where outcome not in ('pending', 'unknown')
       ${page.beforeId !== null ? sql`and id < ${page.beforeId}` : sql``}
     order by id desc
     limit ${page.limit}`;
}

/** cashout_attempts that created (or were resolved to) one withdrawal. */
export function cashoutAttemptsOf(
  sql: Sql,
  withdrawalId: number,
): Promise<CashoutAttemptListRow[]> {
  return sql<CashoutAttemptListRow[]>`
    select ${cashoutColumns(sql)}
      from cashout_attempts
     where withdrawal_id = ${withdrawalId}
     order by id`;
}

/** Cashout attempts whose outcome nobody knows yet, by outcome. */
export async function unresolvedCashoutCounts(
  sql: Sql,
): Promise<{ pending: number; unknown: number }> {
  const [row] = await sql<{ pending: number; unknown: number }[]>`
    select count(*) filter (where outcome = 'pending')::int as pending,
           count(*) filter (where outcome = 'unknown')::int as unknown
      from cashout_attempts
     where outcome in ('pending', 'unknown')`;
  return row ?? { pending: 0, unknown: 0 };
}
