import type { Sql } from '../../db/client.js';

/** The operator's statements on the inbox: list, show, replay, and prune. */

export interface InboxFilter {
  readonly state?: 'pending' | 'processed' | 'quarantined' | 'failed';
  /** Only rows received within this many seconds. */
  readonly sinceSeconds?: number;
  readonly resource?: { readonly type: 'sale' | 'withdrawal'; readonly id: number };
  readonly limit: number;
}

export interface InboxListRow {
  readonly id: number;
  readonly channel: string;
  readonly state: string;
  readonly outcome: string | null;
  /** `sale:123`, or null when the ingress could not tell. */
  readonly resource: string | null;
  readonly status: string | null;
  readonly received_at: Date;
  readonly deliveries: number;
  readonly attempts: number;
}

export async function listInbox(sql: Sql, filter: InboxFilter): Promise<InboxListRow[]> {
  return sql<InboxListRow[]>`
    select id, channel, state, outcome,
           case when resource_type is null then null else resource_type || ':' || resource_id end as resource,
           notified_status as status, received_at, delivery_count as deliveries, attempts
      from inbox_events
     where true
       ${filter.state ? sql`and state = ${filter.state}` : sql``}
       ${filter.sinceSeconds !== undefined ? sql`and received_at >= now() - make_interval(secs => ${filter.sinceSeconds})` : sql``}
       ${filter.resource ? sql`and resource_type = ${filter.resource.type} and resource_id = ${filter.resource.id}` : sql``}
     order by id desc
     limit ${filter.limit}`;
}

export interface InboxDetail {
  readonly id: number;
  readonly channel: string;
  readonly state: string;
  readonly outcome: string | null;
  readonly resourceType: string | null;
  readonly resourceId: number | null;
  readonly notifiedStatus: string | null;
  readonly eventKey: string;
  readonly receivedAt: Date;
  readonly sourceAddress: string | null;
  readonly deliveryCount: number;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly quarantineReason: string | null;
  readonly processedAt: Date | null;
  readonly headers: Record<string, string>;
  /** The body exactly as received, as UTF-8 text. */
  readonly rawBody: string;
}

export async function showInbox(sql: Sql, id: number): Promise<InboxDetail | null> {
  const [row] = await sql<(Omit<InboxDetail, 'rawBody'> & { rawBody: Buffer })[]>`
    select id, channel, state, outcome, resource_type as "resourceType",
           resource_id as "resourceId", notified_status as "notifiedStatus",
           event_key as "eventKey", received_at as "receivedAt",
           source_address as "sourceAddress", delivery_count as "deliveryCount", attempts,
           last_error as "lastError", quarantine_reason as "quarantineReason",
           processed_at as "processedAt", headers, raw_body as "rawBody"
      from inbox_events where id = ${id}`;
  return row ? { ...row, rawBody: row.rawBody.toString('utf8') } : null;
}

export type ReplaySelection =
  | { readonly kind: 'one'; readonly id: number }
  | { readonly kind: 'state'; readonly state: 'failed' | 'quarantined' };

/**
 * Puts failed or quarantined rows back to pending so the worker runs them again; returns their
 * ids to enqueue. A processed row is never replayed: it was applied once and stays so.
 */
export async function markForReplay(sql: Sql, selection: ReplaySelection): Promise<number[]> {
  const rows = await sql<{ id: number }[]>`
    update inbox_events
       set state = 'pending', outcome = null, quarantine_reason = null, last_error = null,
           attempts = 0, processed_at = null, enqueued_at = now()
     where state in ('failed', 'quarantined')
       ${selection.kind === 'one' ? sql`and id = ${selection.id}` : sql`and state = ${selection.state}`}
    returning id`;
  return rows.map((row) => row.id);
}

/** Deletes up to `limit` dedupe keys first received before `cutoffSeconds` ago; how many. */
export async function deleteOldDedupeKeys(
  sql: Sql,
  cutoffSeconds: number,
  limit: number,
): Promise<number> {
  const { count } = await sql`
    delete from inbox_dedupe_keys where ctid in (
      select ctid from inbox_dedupe_keys
       where first_received_at < now() - make_interval(secs => ${cutoffSeconds})
       limit ${limit})`;
  return count;
}

/** Deletes up to `limit` processed rows older than `cutoffSeconds`, oldest first; how many. */
export async function deleteOldProcessedRows(
  sql: Sql,
  cutoffSeconds: number,
  limit: number,
): Promise<number> {
  const { count } = await sql`
    delete from inbox_events where id in (
      select id from inbox_events
       where state = 'processed'
         and coalesce(processed_at, received_at) < now() - make_interval(secs => ${cutoffSeconds})
       order by id limit ${limit})`;
  return count;
}

/** Deletes up to `limit` rejected deliveries older than `cutoffSeconds`; how many. */
export async function deleteOldRejected(
  sql: Sql,
  cutoffSeconds: number,
  limit: number,
): Promise<number> {
  const { count } = await sql`
    delete from rejected_deliveries where id in (
      select id from rejected_deliveries
       where received_at < now() - make_interval(secs => ${cutoffSeconds})
       order by id limit ${limit})`;
  return count;
}

/** What the three deletions above would take, with the same conditions; deletes nothing. */
export async function countOlderThan(
  sql: Sql,
  cutoffSeconds: number,
): Promise<{ dedupeKeys: number; inboxRows: number; rejected: number }> {
  const cutoff = sql`now() - make_interval(secs => ${cutoffSeconds})`;
  const [row] = await sql<{ dedupeKeys: number; inboxRows: number; rejected: number }[]>`
    select
      (select count(*)::int from inbox_dedupe_keys where first_received_at < ${cutoff}) as "dedupeKeys",
      (select count(*)::int from inbox_events
        where state = 'processed' and coalesce(processed_at, received_at) < ${cutoff}) as "inboxRows",
      (select count(*)::int from rejected_deliveries where received_at < ${cutoff}) as rejected`;
  return row ?? { dedupeKeys: 0, inboxRows: 0, rejected: 0 };
}

export interface TailRow {
  readonly id: number;
  readonly received_at: Date;
  readonly channel: string;
  /** `sale:123`, or null when the ingress could not tell. */
  readonly resource: string | null;
  readonly status: string | null;
  readonly state: string;
  readonly outcome: string | null;
}

/** The newest inbox row's id (0 when there is none): where a tail starts. */
export async function lastInboxId(sql: Sql): Promise<number> {
  const [row] = await sql<
    { id: number }[]
  >`select coalesce(max(id), 0)::int8 as id from inbox_events`;
  return row?.id ?? 0;
}

/** Rows after `afterId`, and the rows in `watched` (still pending when last seen), in id order. */
export function tailInbox(
  sql: Sql,
  afterId: number,
  watched: readonly number[],
  limit: number,
): Promise<TailRow[]> {
  return sql<TailRow[]>`
    select id, received_at, channel,
           case when resource_type is null then null else resource_type || ':' || resource_id end as resource,
           notified_status as status, state, outcome
      from inbox_events
     where id > ${afterId} or id = any(${[...watched]}::int8[])
     order by id
     limit ${limit}`;
}
