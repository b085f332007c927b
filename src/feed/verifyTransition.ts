import type { Sql } from '../db/client.js';
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
  const [row] = await sql<
    {
      resource_type: string;
      resource_id: string;
      from_status: string | null;
      to_status: string;
      source: string;
      recorded_at: string | Date;
    }[]
  >`select resource_type, resource_id, from_status, to_status, source, recorded_at
      from status_history where id = ${job.historyId}`;
  if (!row) return { ok: false, reason: `no status_history row ${job.historyId}` };
  const matches =
    row.resource_type === job.resourceType &&
    Number(row.resource_id) === job.resourceId &&
    row.from_status === job.fromStatus &&
    row.to_status === job.toStatus &&
    row.source === job.source &&
    new Date(row.recorded_at).getTime() === Date.parse(job.recordedAt);
  return matches
    ? { ok: true, transition: job }
    : { ok: false, reason: `job differs from status_history row ${job.historyId}` };
}
