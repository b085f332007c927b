import type { Sql } from '../db/client.js';
import type { Logger } from '../log/logger.js';
import { runPeriodically, type PeriodicTask } from './periodic.js';
import { releaseDeadNotificationJobs, type RetryPolicy } from '../queue/catalog.js';
import { enqueueInLanes, laneFor, type LaneQueues, type LaneRow } from '../queue/lanes.js';
import type { Channel } from '../notifications/notification.js';

export interface SweeperDeps {
  readonly sql: Sql;
  readonly lanes: LaneQueues;
  /** Webhooks go to the confirmation lane when the gateway can be read. */
  readonly gatewayConfigured: boolean;
  readonly retry: RetryPolicy;
  /** A pending row last enqueued longer ago than this is enqueued again. */
  readonly afterSeconds: number;
  readonly batchSize?: number;
}

export interface SweepResult {
  /** Pending rows enqueued again. */
  readonly requeued: number;
  /** Dead jobs removed first because they held a pending row's job id. */
  readonly released: number;
}

/**
 * Re-enqueues inbox rows still pending: Redis lost its jobs, or a process died between the
 * INSERT and the add. Job ids come from the rows, so a job still queued is not duplicated;
 * a dead job holding a row's id (left by keys deleted under a running worker) is removed first,
 * or the add would be a no-op.
 */
export async function sweepPendingInbox(deps: SweeperDeps): Promise<SweepResult> {
  const batchSize = deps.batchSize ?? 500;
  let requeued = 0;
  let released = 0;
  for (;;) {
    const rows = await deps.sql<{ id: string; channel: Channel }[]>`
      update inbox_events set enqueued_at = now()
       where id in (
         select id from inbox_events
          where state = 'pending'
            and (enqueued_at is null
                 or enqueued_at <= now() - make_interval(secs => ${deps.afterSeconds}))
          order by id
          limit ${batchSize}
          for update skip locked)
      returning id, channel`;
    const swept: LaneRow[] = rows.map((row) => ({ id: Number(row.id), channel: row.channel }));
    for (const lane of ['signed', 'confirmation'] as const) {
      const ids = swept
        .filter((row) => laneFor(row.channel, deps.gatewayConfigured) === lane)
        .map((row) => row.id);
      released += await releaseDeadNotificationJobs(deps.lanes[lane], ids);
    }
    await enqueueInLanes(deps.lanes, swept, deps.gatewayConfigured, deps.retry);
    requeued += swept.length;
    if (swept.length < batchSize) return { requeued, released };
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
      const { requeued, released } = await sweepPendingInbox(deps);
      onSwept(requeued);
      if (released > 0) {
        logger.warn({ released }, "sweeper removed dead jobs that held pending rows' job ids");
      }
      if (requeued > 0) logger.info({ count: requeued }, 'sweeper re-enqueued pending inbox rows');
      return { again: false };
    },
    intervalSeconds * 1000,
    logger,
  );
}
