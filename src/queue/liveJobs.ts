import type { JobType } from 'bullmq';
import { notificationJobId, type NotificationQueue } from './catalog.js';

/** Job states in which a job will still run: its row needs no new add. */
const LIVE_JOB_STATES: ReadonlySet<string> = new Set([
  'waiting',
  'prioritized',
  'delayed',
  'active',
  'waiting-children',
]);

/** Where BullMQ keeps those jobs (a paused queue's waiting jobs are in `paused`). */
const LIVE_JOB_TYPES: readonly JobType[] = [
  'wait',
  'paused',
  'active',
  'prioritized',
  'delayed',
  'waiting-children',
];

/** Job ids read in one call: Redis serves no one else while it copies them. */
const LIVE_JOB_IDS_PAGE = 5_000;

/**
 * The ids of a queue's jobs that will still run, read page by page from the lists and sets that
 * hold them. `getJobState` finds a waiting job with LPOS, a scan of the whole wait list, so
 * reading each row's state on its own costs Redis the backlog's size squared: one sweep over
 * 32,000 webhooks waiting on the gateway budget held it 8.5 s. A job that moves while the pages
 * are read can be missed, and a row whose job is not here is read on its own, as before.
 */
export async function liveJobIds(
  queue: NotificationQueue,
  pageSize = LIVE_JOB_IDS_PAGE,
): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const type of LIVE_JOB_TYPES) {
    for (let start = 0; ; start += pageSize) {
      const page = await queue.getRanges([type], start, start + pageSize - 1);
      for (const id of page) ids.add(id);
      if (page.length < pageSize) break;
    }
  }
  return ids;
}

/**
 * What holds a row's job id in this queue: a job that will run, none, or a dead one (a hash
 * whose state says it will not run). A job in `live` (from liveJobIds) runs. One not there is
 * looked for by its hash first, in constant time, so a row whose job is gone (what the sweeper
 * is for) costs no scan of the queue's lists; its state is read only when the hash is there. A
 * dead id left in the wait list without its hash is in `live`: a worker takes it and fails it
 * first.
 */
async function jobHolding(
  queue: NotificationQueue,
  jobId: string,
  live: ReadonlySet<string>,
): Promise<'runs' | 'none' | 'dead'> {
  if (live.has(jobId)) return 'runs';
  if ((await queue.getJob(jobId)) === undefined) return 'none';
  return LIVE_JOB_STATES.has(await queue.getJobState(jobId)) ? 'runs' : 'dead';
}

/** Those of these inbox rows whose job in this queue will still run (jobHolding). */
export async function rowsWithLiveJobs(
  queue: NotificationQueue,
  inboxEventIds: readonly number[],
  live: ReadonlySet<string>,
): Promise<Set<number>> {
  const holders = await Promise.all(
    inboxEventIds.map((inboxEventId) => jobHolding(queue, notificationJobId(inboxEventId), live)),
  );
  return new Set(inboxEventIds.filter((_, index) => holders[index] === 'runs'));
}

export interface JobsToAdd {
  /** The rows with no job that will run them: to be added again. */
  readonly inboxEventIds: readonly number[];
  /** Of those, how many had a dead job removed first to free their id. */
  readonly released: number;
}

/**
 * Which of these inbox rows have no job that will run them. A row whose job runs (jobHolding)
 * is left out: adding it again would be a no-op (an add dedupes on the job id), and a backlog
 * waiting on the gateway budget would be counted and logged as re-enqueued at every sweep. A job that holds a row's id but will never run is
 * removed first, so the add can take the id: a finished job (completed or failed) or one in no
 * state at all. Finished jobs are removed as they finish (notificationJobOptions), so one still
 * there was left by Redis losing keys under a running worker: a job whose hash was deleted
 * while its id stayed in the wait list is taken by BullMQ all the same, its hash re-created
 * without data or options, and it fails and stays; a hash that outlived its wait list is in no
 * state.
 */
export async function jobsToAdd(
  queue: NotificationQueue,
  inboxEventIds: readonly number[],
  live: ReadonlySet<string>,
): Promise<JobsToAdd> {
  const verdicts = await Promise.all(
    inboxEventIds.map(async (inboxEventId): Promise<'add' | 'released' | 'live'> => {
      const jobId = notificationJobId(inboxEventId);
      const holder = await jobHolding(queue, jobId, live);
      if (holder === 'runs') return 'live';
      if (holder === 'none') return 'add';
      if ((await queue.remove(jobId)) === 1) return 'released';
      // remove() answers 0 for a job taken (locked) since its state was read, and for one
      // removed by then (its removeOnComplete): only the first will still run.
      return (await queue.getJob(jobId)) === undefined ? 'add' : 'live';
    }),
  );
  return {
    inboxEventIds: inboxEventIds.filter((_, index) => verdicts[index] !== 'live'),
    released: verdicts.filter((verdict) => verdict === 'released').length,
  };
}
