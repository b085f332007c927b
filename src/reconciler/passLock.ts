import type { Sql } from '../db/client.js';

/** Any fixed number shared by every paymirror process: one reconciliation pass at a time. */
const RECONCILE_LOCK_KEY = 7_246_102;

export class PassLockTimeoutError extends Error {
  override readonly name = 'PassLockTimeoutError';
}

/**
 * Runs `fn` holding the cluster-wide reconciliation lock (a session advisory lock on a
 * reserved connection). `waitMs` 0: return null at once when another pass holds it.
 */
export async function withPassLock<T>(
  sql: Sql,
  waitMs: number,
  fn: () => Promise<T>,
): Promise<T | null> {
  const connection = await sql.reserve();
  try {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const [row] = await connection<{ locked: boolean }[]>`
        select pg_try_advisory_lock(${RECONCILE_LOCK_KEY}) as locked`;
      if (row?.locked) break;
      if (Date.now() >= deadline) {
        if (waitMs === 0) return null;
        throw new PassLockTimeoutError(
          `another reconciliation pass is still running after ${Math.round(waitMs / 1000)} s`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    try {
      return await fn();
    } finally {
      await connection`select pg_advisory_unlock(${RECONCILE_LOCK_KEY})`;
    }
  } finally {
    connection.release();
  }
}
