import { GatewayError } from '../gateway/gatewayError.js';
import { databaseNow } from '../db/clock.js';
import { writeMirror } from '../mirror/applyToMirror.js';
import type { ReconcileDeps } from './reconcilePass.js';
import { advanceBackfill, startBackfill } from './sql.js';
import { InvariantError } from '../lib/invariantError.js';

export interface BackfillSummary {
  readonly fromId: number;
  readonly toId: number;
  /** In all, this run and the earlier ones on the same range. */
  readonly found: number;
  readonly skipped: number;
  /** The first id this run probed (toId + 1 when the range was already done). */
  readonly resumedAt: number;
  /** What this run itself did. */
  readonly thisRun: { readonly found: number; readonly skipped: number };
  /** The range was finished by an earlier run: nothing was probed now. */
  readonly alreadyFinished: boolean;
}

class BackfillRangeError extends Error {
  override readonly name = 'BackfillRangeError';
}

/**
 * Probes sale ids A..B with GET (under the client's rate limit) and mirrors those that are
 * ours; 404 and 403 are skipped. Progress is saved after every id, so running the same range
 * again resumes where a stop (or a gateway failure) left off.
 */
export async function backfillSales(
  deps: ReconcileDeps,
  fromId: number,
  toId: number,
): Promise<BackfillSummary> {
  if (!Number.isSafeInteger(fromId) || !Number.isSafeInteger(toId) || fromId < 1 || toId < fromId) {
    throw new BackfillRangeError(`invalid range ${fromId}..${toId}: need 1 <= from-id <= to-id`);
  }
  const progress = await startBackfill(deps.sql, fromId, toId);
  if (!progress) throw new InvariantError('backfill progress row vanished');
  let { found, skipped } = progress;
  const thisRun = { found: 0, skipped: 0 };
  const resumedAt = progress.nextId;
  const now = deps.now ?? (() => new Date());

  for (let id = progress.nextId; id <= toId; id += 1) {
    const readAt = await databaseNow(deps.sql);
    let isOurs = true;
    try {
      const record = await deps.gateway.getTransaction(id);
      await writeMirror(
        deps.sql,
        [
          {
            kind: 'read',
            resource: 'sale',
            record,
            readAt,
            context: { source: 'reconcile', inboxEventId: null },
            purpose: 'reconcile',
            runId: null,
          },
        ],
        { now: now(), policy: deps.policy },
      );
    } catch (error) {
      if (!(error instanceof GatewayError && error.isNotOurs)) throw error;
      isOurs = false;
    }
    if (isOurs) found += 1;
    else skipped += 1;
    thisRun[isOurs ? 'found' : 'skipped'] += 1;
    await advanceBackfill(deps.sql, { fromId, toId }, id, { found, skipped });
    deps.onProgress?.(id - fromId + 1, toId - fromId + 1);
  }
  return {
    fromId,
    toId,
    found,
    skipped,
    resumedAt,
    thisRun,
    alreadyFinished: progress.finishedAt !== null,
  };
}
