import type { Sql } from '../db/client.js';
import type { Logger } from '../log/logger.js';
import { runPeriodically, type PeriodicTask } from './periodic.js';
import {
  enqueueNotifications,
  type NotificationQueue,
  type RetryPolicy,
} from '../queue/catalog.js';

export interface SweeperDeps {
  readonly sql: Sql;
  readonly queue: NotificationQueue;
  readonly retry: RetryPolicy;
  /** A pending row last enqueued longer ago than this is enqueued again. */
  readonly afterSeconds: number;
  readonly batchSize?: number;
}

/**
 * Re-enqueues inbox rows still pending: Redis lost its jobs, or a process died between the
 * INSERT and the add. Job ids come from the rows, so a job still queued is not duplicated.
 * Returns how many rows it put back.
 */
export async function sweepPendingInbox(deps: SweeperDeps): Promise<number> {
  const batchSize = deps.batchSize ?? 500;
  let total = 0;
  for (;;) {
    const rows = await deps.sql<{ id: string }[]>`
      update inbox_events set enqueued_at = now()
       where id in (
         select id from inbox_events
          where state = 'pending'
            and (enqueued_at is null
                 or enqueued_at <= now() - make_interval(secs => ${deps.afterSeconds}))
          order by id
          limit ${batchSize}
          for update skip locked)
      returning id`;
    const ids = rows.map((row) => Number(row.id));
    await enqueueNotifications(deps.queue, ids, deps.retry);
    total += ids.length;
    if (ids.length < batchSize) return total;
  }
}

/** Runs the sweep now and every `intervalSeconds`, one pass at a time. */
export function startSweeperLoop(
  deps: SweeperDeps,
  intervalSeconds: number,
  logger: Logger,
  onSwept: (count: number) => void = () => {},
): PeriodicTask {
  return runPeriodically(
    'sweep',
    async () => {
      const count = await sweepPendingInbox(deps);
      onSwept(count);
      if (count > 0) logger.info({ count }, 'sweeper re-enqueued pending inbox rows');
      return { again: false };
    },
    intervalSeconds * 1000,
    logger,
  );
}
