import type { Sql } from '../../db/client.js';

/** Reads of inbox_events for people: the console's deliveries and health. */
/** bigint columns read as numbers (src/db/client.ts), timestamps as Dates. */

export type ResourceType = 'sale' | 'withdrawal';

export interface DeliveryFilter {
  readonly channel: 'postback' | 'webhook' | null;
  readonly state: 'pending' | 'processed' | 'quarantined' | 'failed' | null;
  readonly outcome: string | null;
  readonly resourceType: ResourceType | null;
  readonly resourceId: number | null;
  /** São Paulo wall-clock minutes (YYYY-MM-DDTHH:MM), both inclusive, on received_at. */
  readonly from: string | null;
  readonly to: string | null;
  /** Keyset paging: only rows older (smaller id) than this one. */
  readonly beforeId: number | null;
  readonly limit: number;
}

export interface DeliveryRow {
  readonly id: number;
  readonly channel: string;
  readonly resource_type: string | null;
  readonly resource_id: number | null;
  readonly notified_status: string | null;
  readonly state: string;
  readonly outcome: string | null;
  readonly quarantine_reason: string | null;
  readonly last_error: string | null;
  readonly attempts: number;
  readonly delivery_count: number;
  readonly received_at: Date;
  readonly processed_at: Date | null;
}

function deliveryColumns(sql: Sql) {
  return sql`id, channel, resource_type, resource_id, notified_status, state, outcome,
             quarantine_reason, last_error, attempts, delivery_count, received_at, processed_at`;
}

/** inbox_events, newest first, filtered. */
export function listDeliveries(sql: Sql, filter: DeliveryFilter): Promise<DeliveryRow[]> {
  const f = filter;
  return sql<DeliveryRow[]>`
    select ${deliveryColumns(sql)}
      from inbox_events
     where true
       ${f.channel ? sql`and channel = ${f.channel}` : sql``}
       ${f.state ? sql`and state = ${f.state}` : sql``}
       ${f.outcome ? sql`and outcome = ${f.outcome}` : sql``}
       ${f.resourceType ? sql`and resource_type = ${f.resourceType}` : sql``}
       ${f.resourceId !== null ? sql`and resource_id = ${f.resourceId}` : sql``}
       ${f.from ? sql`and received_at >= (${f.from}::timestamp at time zone 'America/Sao_Paulo')` : sql``}
       ${
         f.to
           ? sql`and received_at < (${f.to}::timestamp at time zone 'America/Sao_Paulo') + interval '1 minute'`
           : sql``
       }
       ${f.beforeId !== null ? sql`and id < ${f.beforeId}` : sql``}
     order by id desc
     limit ${f.limit}`;
}

export interface DeliveryDetailRow extends DeliveryRow {
  readonly event_key: string;
  readonly body_sha256: string;
  readonly headers: Record<string, unknown>;
  readonly payload: unknown;
  readonly raw_body: Buffer;
  readonly source_address: string | null;
  readonly last_delivered_at: Date;
  readonly enqueued_at: Date | null;
}

/** One inbox_events row, its headers and body included. */
export async function deliveryById(sql: Sql, id: number): Promise<DeliveryDetailRow | null> {
  const [row] = await sql<DeliveryDetailRow[]>`
    select ${deliveryColumns(sql)}, event_key, body_sha256, headers, payload, raw_body,
           source_address, last_delivered_at, enqueued_at
      from inbox_events
     where id = ${id}`;
  return row ?? null;
}

/** inbox_events about one record, oldest first. */
export function deliveriesOf(
  sql: Sql,
  resourceType: ResourceType,
  id: number,
  limit: number,
): Promise<DeliveryRow[]> {
  return sql<DeliveryRow[]>`
    select ${deliveryColumns(sql)}
      from inbox_events
     where resource_type = ${resourceType} and resource_id = ${id}
     order by id
     limit ${limit}`;
}

export interface InboxHealthRow {
  readonly pending: number;
  readonly quarantined: number;
  readonly failed: number;
  readonly oldest_pending_id: number | null;
  readonly oldest_pending_at: Date | null;
  readonly oldest_pending_age_seconds: number | null;
}

/** Rows waiting or stuck, and the oldest delivery still pending. */
export async function inboxHealth(sql: Sql): Promise<InboxHealthRow> {
  const [row] = await sql<InboxHealthRow[]>`
    select (select count(*)::int from inbox_events where state = 'pending') as pending,
           (select count(*)::int from inbox_events where state = 'quarantined') as quarantined,
           (select count(*)::int from inbox_events where state = 'failed') as failed,
           oldest.id as oldest_pending_id,
           oldest.received_at as oldest_pending_at,
           floor(extract(epoch from now() - oldest.received_at))::bigint
             as oldest_pending_age_seconds
      from (select 1) one
      left join lateral (
            select id, received_at from inbox_events
             where state = 'pending' order by received_at, id limit 1
           ) oldest on true`;
  if (!row) throw new Error('inboxHealth: no row');
  return row;
}
