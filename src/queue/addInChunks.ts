import type { Queue } from 'bullmq';

/**
 * The most jobs one addBulk carries. BullMQ sends an addBulk as one MULTI/EXEC, and Redis
 * serves no other client until it has run every job's script: on the bench's 2-core VM, 500
 * jobs held it 43-46 ms (a PING from another client waited that long), 50 jobs at most 10 ms.
 * Every job the worker finishes and every request the ingress answers goes through Redis.
 */
export const MAX_JOBS_PER_ADD_BULK = 64;

type BulkJobs<Q extends Queue> = Parameters<Q['addBulk']>[0];

/**
 * `queue.addBulk(jobs)` in slices of MAX_JOBS_PER_ADD_BULK, one after the other: the jobs
 * reach the queue in the order given, and a slice that fails stops the rest.
 */
export async function addInChunks<Q extends Queue>(queue: Q, jobs: BulkJobs<Q>): Promise<void> {
  for (let start = 0; start < jobs.length; start += MAX_JOBS_PER_ADD_BULK) {
    await queue.addBulk(jobs.slice(start, start + MAX_JOBS_PER_ADD_BULK));
  }
}
