import type { Sql } from '../db/client.js';
import { selectFields } from '../db/jsonRows.js';
import type { CashoutAttemptRow } from '../db/rows.js';
import { cashoutAttempts } from '../db/schema.js';

/** The statements on `cashout_attempts`. */

export type CashoutOutcome = 'pending' | 'succeeded' | 'rejected' | 'unknown' | 'not_paid';

/** Records an attempt before its POST is sent; returns its id. */
export async function insertAttempt(
  sql: Sql,
  request: {
    readonly amountCents: number;
    readonly pixKey: string;
    readonly pixKeyType: string | null;
  },
): Promise<number | null> {
  const [attempt] = await sql<{ id: number }[]>`
    insert into cashout_attempts (amount_cents, pix_key, pix_key_type)
    values (${request.amountCents}, ${request.pixKey}, ${request.pixKeyType})
    returning id`;
  return attempt?.id ?? null;
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
