import { randomUUID } from 'node:crypto';
import type { Sql } from '../db/client.js';
import { releaseLease, renewLease, takeLease } from './sql.js';

/** The lease's name in scheduler_leases. */
const RECONCILE_LEASE = 'reconcile';
/** A holder that dies lets go after this long; a live one renews at a third of it. */
const LEASE_SECONDS = 60;

class PassLockTimeoutError extends Error {
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
  while (!(await takeLease(sql, RECONCILE_LEASE, holder, LEASE_SECONDS))) {
    if (Date.now() >= deadline) {
      if (waitMs === 0) return null;
      throw new PassLockTimeoutError(
        `another reconciliation pass is still running after ${Math.round(waitMs / 1000)} s`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const renewal = setInterval(
    () => void renewLease(sql, RECONCILE_LEASE, holder, LEASE_SECONDS).catch(() => undefined),
    (LEASE_SECONDS * 1000) / 3,
  );
  try {
    return await fn();
  } finally {
    clearInterval(renewal);
    await releaseLease(sql, RECONCILE_LEASE, holder);
  }
}
