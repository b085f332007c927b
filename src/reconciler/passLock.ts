import { randomUUID } from 'node:crypto';
import type { Sql } from '../db/client.js';

/** The lease's name in scheduler_leases. */
const RECONCILE_LEASE = 'reconcile';
/** A holder that dies lets go after this long; a live one renews at a third of it. */
const LEASE_SECONDS = 60;

export class PassLockTimeoutError extends Error {
  override readonly name = 'PassLockTimeoutError';
}

/**
 * Runs `fn` holding the fleet-wide reconciliation lease (one pass at a time across every
 * process). `waitMs` 0: return null at once when another pass holds it. The lease is a row of
 * scheduler_leases, taken and renewed in single statements: it works through PgBouncer in
 * transaction mode, and a holder killed mid-pass frees it within LEASE_SECONDS.
 */
export async function withPassLock<T>(
  sql: Sql,
  waitMs: number,
  fn: () => Promise<T>,
): Promise<T | null> {
  const holder = randomUUID();
  const deadline = Date.now() + waitMs;
  while (!(await takeLease(sql, holder))) {
    if (Date.now() >= deadline) {
      if (waitMs === 0) return null;
      throw new PassLockTimeoutError(
        `another reconciliation pass is still running after ${Math.round(waitMs / 1000)} s`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const renewal = setInterval(
    () => {
      void sql`
      update scheduler_leases set expires_at = now() + make_interval(secs => ${LEASE_SECONDS})
       where name = ${RECONCILE_LEASE} and holder = ${holder}`.catch(() => undefined);
    },
    (LEASE_SECONDS * 1000) / 3,
  );
  try {
    return await fn();
  } finally {
    clearInterval(renewal);
    await sql`delete from scheduler_leases where name = ${RECONCILE_LEASE} and holder = ${holder}`;
  }
}

async function takeLease(sql: Sql, holder: string): Promise<boolean> {
  const rows = await sql`
    insert into scheduler_leases (name, holder, expires_at)
    values (${RECONCILE_LEASE}, ${holder}, now() + make_interval(secs => ${LEASE_SECONDS}))
    on conflict (name) do update
       set holder = excluded.holder, expires_at = excluded.expires_at
     where scheduler_leases.expires_at < now()
    returning holder`;
  return rows.length === 1;
}
