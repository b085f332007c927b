import type { Sql } from '../db/client.js';
import { transitionById, type Transition } from '../mirror/sql/history.js';
import { TRANSITION_JOB, transitionJobId } from '../queue/catalog.js';
import type { TransitionQueue } from './transitionPublisher.js';

/** Replays are kept as long as the publisher keeps its jobs. */
const KEEP_SECONDS = 7 * 24 * 3600;

class UnknownTransitionError extends Error {
  override readonly name = 'UnknownTransitionError';
  constructor(historyId: number) {
    super(`no transition ${historyId} (status_history id; paymirror mirror sale <id> lists them)`);
  }
}

/**
 * Puts one status_history row on the transitions queue again, for a consumer that lost it. The
 * data is the row's, so paymirror's own consumer posts it (it checks every job against
 * status_history) with the same Idempotency-Key as the first time; the job id differs, or BullMQ
 * would take it for the first one and drop it.
 */
export async function replayTransition(
  sql: Sql,
  queue: TransitionQueue,
  historyId: number,
  now: Date = new Date(),
): Promise<{ transition: Transition; jobId: string }> {
  const transition = await transitionById(sql, historyId);
  if (!transition) throw new UnknownTransitionError(historyId);
  const jobId = `${transitionJobId(historyId)}-replay-${now.getTime()}`;
  await queue.add(
    TRANSITION_JOB,
    {
      historyId: transition.id,
      resourceType: transition.resourceType,
      resourceId: transition.resourceId,
      fromStatus: transition.fromStatus,
      toStatus: transition.toStatus,
      source: transition.source,
      recordedAt: transition.recordedAt.toISOString(),
    },
    { jobId, removeOnComplete: { age: KEEP_SECONDS }, removeOnFail: { age: KEEP_SECONDS } },
  );
  return { transition, jobId };
}
