import type { Sql } from '../db/client.js';
import type { Logger } from '../log/logger.js';
import { runPeriodically, type PeriodicTask } from './periodic.js';
import type { RetryPolicy } from '../queue/catalog.js';
import { jobsToAdd, liveJobIds, rowsWithLiveJobs } from '../queue/liveJobs.js';
import {
  enqueueInLanes,
  laneFor,
  laneRuns,
  type Lane,
  type LaneQueues,
  type LaneRow,
} from '../queue/lanes.js';
import { claimDueRows, cutoffOfPass, dueRowBatches } from './dueRows.js';

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
  /** Pending rows enqueued again: those with no job left that would run them. */
  readonly requeued: number;
  /** Dead jobs removed first because they held a pending row's job id. */
  readonly released: number;
}

/**
 * Re-enqueues inbox rows still pending whose jobs are gone: Redis lost them, or a process died
 * between the INSERT and the add. A row whose job is still queued (a webhook waiting on the
 * gateway budget, say) is left to it, and left unwritten: a backlog costs a pass reads, not an
 * update of every row (a new version of a 3 KB row, its index entries and its WAL). A dead job
 * holding a row's id (left by keys deleted under a running worker) is removed first, or the add
 * would be a no-op.
 */
export async function sweepPendingInbox(deps: SweeperDeps): Promise<SweepResult> {
  const batchSize = deps.batchSize ?? 500;
  let requeued = 0;
  let released = 0;
  const live = liveJobsOnce(deps.lanes);
  const cutoff = await cutoffOfPass(deps.sql, deps.afterSeconds);
  for await (const due of dueRowBatches(deps.sql, cutoff, batchSize)) {
    const { missing, releasedJobs } = await rowsNoJobWillRun(deps, due, live);
    released += releasedJobs;
    const claimed = await claimDueRows(deps.sql, missing, cutoff);
    await enqueueInLanes(deps.lanes, claimed, deps.gatewayConfigured, deps.retry);
    requeued += claimed.length;
  }
  return { requeued, released };
}

/**
 * The swept rows no job will run, once the dead jobs holding their ids are removed. A row's job
 * is looked for in its own lane, then in the others: a row the signed lane handed over (a move
 * that needs a read) waits in the confirmation lane, a webhook about an unknown id in the lane
 * of unknown ids. A lane without workers (laneRuns) counts for nothing: a job there would wait
 * for good.
 */
async function rowsNoJobWillRun(
  deps: SweeperDeps,
  swept: readonly LaneRow[],
  live: LiveJobs,
): Promise<{ missing: LaneRow[]; releasedJobs: number }> {
  const missing: LaneRow[] = [];
  let releasedJobs = 0;
  const lanes = Object.keys(deps.lanes) as Lane[];
  for (const lane of lanes) {
    const inLane = swept.filter((row) => laneFor(row, deps.gatewayConfigured) === lane);
    if (inLane.length === 0) continue;
    const toAdd = await jobsToAdd(
      deps.lanes[lane],
      inLane.map((row) => row.id),
      await live(lane),
    );
    releasedJobs += toAdd.released;
    let adding = new Set(toAdd.inboxEventIds);
    for (const other of lanes) {
      if (other === lane || adding.size === 0 || !laneRuns(other, deps.gatewayConfigured)) continue;
      const waiting = await rowsWithLiveJobs(deps.lanes[other], [...adding], await live(other));
      adding = new Set([...adding].filter((id) => !waiting.has(id)));
    }
    missing.push(...inLane.filter((row) => adding.has(row.id)));
  }
  return { missing, releasedJobs };
}

type LiveJobs = (lane: Lane) => Promise<ReadonlySet<string>>;

/**
 * Each lane's live job ids (liveJobIds), read once a pass and only for a lane with swept rows to
 * look for. A row whose job is not among them is read on its own; one whose job ended since the
 * read is looked at again SWEEP_AFTER_SECONDS later, as a row whose job ended after its own read
 * always was.
 */
function liveJobsOnce(lanes: LaneQueues): LiveJobs {
  const read = new Map<Lane, Promise<ReadonlySet<string>>>();
  return (lane) => {
    let ids = read.get(lane);
    if (ids === undefined) {
      ids = liveJobIds(lanes[lane]);
      read.set(lane, ids);
    }
    return ids;
  };
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
