import type { Sql } from '../../db/client.js';

/** The statements on `rejected_deliveries`: deliveries that failed authentication. */

export interface RejectedInsert {
  readonly channel: string;
  readonly reason: string;
  readonly rawBody: Buffer | null;
  readonly bodySha256: string | null;
  readonly bodyBytes: number | null;
  readonly bodyTruncated: boolean;
  readonly headers: Record<string, string>;
  readonly tokenSha256: string | null;
  readonly sourceAddress: string | null;
}

export async function insertRejected(sql: Sql, rejected: RejectedInsert): Promise<void> {
  await sql`
    insert into rejected_deliveries (channel, reason, raw_body, body_sha256, body_bytes,
                                     body_truncated, headers, token_sha256, source_address)
    values (${rejected.channel}, ${rejected.reason}, ${rejected.rawBody}::bytea,
            ${rejected.bodySha256}, ${rejected.bodyBytes}::int, ${rejected.bodyTruncated},
            ${JSON.stringify(rejected.headers)}::jsonb, ${rejected.tokenSha256},
            ${rejected.sourceAddress})`;
}

export interface RejectRetention {
  readonly maxRows: number;
  readonly maxAgeDays: number;
}

/** Keeps the table within `maxRows` and `maxAgeDays`; returns how many rows went. */
export async function trimRejected(sql: Sql, retention: RejectRetention): Promise<number> {
  const old = await sql`
    delete from rejected_deliveries
     where received_at < now() - make_interval(days => ${retention.maxAgeDays})`;
  const excess = await sql`
    delete from rejected_deliveries
     where id <= (select max(id) from rejected_deliveries) - ${retention.maxRows}`;
  return old.count + excess.count;
}

export interface RejectedListRow {
  readonly id: number;
  readonly channel: string;
  readonly reason: string;
  readonly source_address: string | null;
  readonly received_at: Date;
  readonly inbox_event_id: number | null;
  /** The body's size as received. */
  readonly bytes: number | null;
  /** Whether the whole body was kept (a sample) or only its head. */
  readonly body_kept: 'whole' | 'head' | null;
}

/** The latest rejections, newest first, received within `sinceSeconds` when given. */
export function listRejected(
  sql: Sql,
  sinceSeconds: number | undefined,
  limit: number,
): Promise<RejectedListRow[]> {
  return sql<RejectedListRow[]>`
    select id, channel, reason, source_address, received_at, inbox_event_id,
           coalesce(body_bytes, octet_length(raw_body)) as bytes,
           case when raw_body is null then null when body_truncated then 'head' else 'whole' end
             as body_kept
      from rejected_deliveries
     where ${sinceSeconds === undefined ? sql`true` : sql`received_at >= now() - make_interval(secs => ${sinceSeconds})`}
     order by id desc limit ${limit}`;
}

/** A kept rejection as re-verification reads it. */
export interface KeptRejection {
  readonly id: number;
  readonly channel: 'postback' | 'webhook';
  readonly rawBody: Buffer | null;
  /** Only the body's head was kept: it cannot be checked again. */
  readonly bodyTruncated: boolean;
  readonly headers: Record<string, string>;
  readonly tokenSha256: string | null;
  readonly sourceAddress: string | null;
}

/** The rejections not moved to the inbox yet, oldest first. */
export function keptRejections(sql: Sql): Promise<KeptRejection[]> {
  return sql<KeptRejection[]>`
    select id, channel, raw_body as "rawBody", body_truncated as "bodyTruncated", headers,
           token_sha256 as "tokenSha256",
           source_address as "sourceAddress"
      from rejected_deliveries where inbox_event_id is null order by id`;
}

/** The rejection passed now and went to the inbox as that row. */
export async function markMoved(sql: Sql, id: number, inboxEventId: number): Promise<void> {
  await sql`update rejected_deliveries set inbox_event_id = ${inboxEventId} where id = ${id}`;
}
