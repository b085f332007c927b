import type { Sql } from '../db/client.js';
import { transitionById } from '../mirror/sql/history.js';
import { transitionJobSchema, type TransitionJob } from '../queue/catalog.js';

/**
 * Anyone who can write to Redis can add a job to the transitions queue; the consumer believes
 * only what status_history says. A job is posted only when it decodes and matches, field by
 * field, a history row. (Not "a published row": the publisher adds its jobs before its
 * transaction marks the rows published, and the poster may already hold one.)
 */
export async function verifyTransition(
  sql: Sql,
  data: unknown,
): Promise<{ ok: true; transition: TransitionJob } | { ok: false; reason: string }> {
  const parsed = transitionJobSchema.safeParse(data);
  if (!parsed.success) return { ok: false, reason: 'job data is not a transition' };
  const job = parsed.data;
  const row = await transitionById(sql, job.historyId);
  if (!row) return { ok: false, reason: `no status_history row ${job.historyId}` };
  const matches =
    row.resourceType === job.resourceType &&
    row.resourceId === job.resourceId &&
    row.fromStatus === job.fromStatus &&
    row.toStatus === job.toStatus &&
    row.source === job.source &&
    row.recordedAt.getTime() === Date.parse(job.recordedAt);
  return matches
    ? { ok: true, transition: job }
    : { ok: false, reason: `job differs from status_history row ${job.historyId}` };
}
