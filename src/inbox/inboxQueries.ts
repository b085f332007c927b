import type { Sql } from '../db/client.js';

export interface InboxFilter {
  readonly state?: 'pending' | 'processed' | 'quarantined' | 'failed';
  /** Only rows received within this many seconds. */
  readonly sinceSeconds?: number;
  readonly resource?: { readonly type: 'sale' | 'withdrawal'; readonly id: number };
  readonly limit: number;
}

export type InboxListRow = {
  id: number;
  channel: string;
  state: string;
  outcome: string | null;
  resource: string | null;
  status: string | null;
  /** ISO-like text as Postgres prints it (drizzle's client leaves timestamps unparsed). */
  received_at: string;
  deliveries: number;
  attempts: number;
};

export async function listInbox(sql: Sql, filter: InboxFilter): Promise<InboxListRow[]> {
  const rows = await sql<(Omit<InboxListRow, 'id'> & { id: string })[]>`
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
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}

export interface InboxDetail {
  id: number;
  channel: string;
  state: string;
  outcome: string | null;
  resourceType: string | null;
  resourceId: number | null;
  notifiedStatus: string | null;
  eventKey: string;
  receivedAt: string;
  sourceAddress: string | null;
  deliveryCount: number;
  attempts: number;
  lastError: string | null;
  quarantineReason: string | null;
  processedAt: string | null;
  headers: Record<string, string>;
  /** The body exactly as received, as UTF-8 text. */
  rawBody: string;
}

export async function showInbox(sql: Sql, id: number): Promise<InboxDetail | null> {
  const [row] = await sql`
    select id, channel, state, outcome, resource_type, resource_id, notified_status, event_key,
           received_at, source_address, delivery_count, attempts, last_error, quarantine_reason,
           processed_at, headers, raw_body
      from inbox_events where id = ${id}`;
  if (!row) return null;
  return {
    id: Number(row.id),
    channel: row.channel,
    state: row.state,
    outcome: row.outcome,
    resourceType: row.resource_type,
    resourceId: row.resource_id === null ? null : Number(row.resource_id),
    notifiedStatus: row.notified_status,
    eventKey: row.event_key,
    receivedAt: row.received_at,
    sourceAddress: row.source_address,
    deliveryCount: row.delivery_count,
    attempts: row.attempts,
    lastError: row.last_error,
    quarantineReason: row.quarantine_reason,
    processedAt: row.processed_at,
    headers: row.headers,
    rawBody: (row.raw_body as Buffer).toString('utf8'),
  };
}

export type ReplaySelection =
  | { readonly kind: 'one'; readonly id: number }
  | { readonly kind: 'state'; readonly state: 'failed' | 'quarantined' };

/**
 * Puts failed or quarantined rows back to pending so the worker runs them again; returns their
 * ids to enqueue. A processed row is never replayed: it was applied once and stays so.
 */
export async function markForReplay(sql: Sql, selection: ReplaySelection): Promise<number[]> {
  const rows = await sql<{ id: string }[]>`
    update inbox_events
       set state = 'pending', outcome = null, quarantine_reason = null, last_error = null,
           attempts = 0, processed_at = null, enqueued_at = now()
     where state in ('failed', 'quarantined')
       ${selection.kind === 'one' ? sql`and id = ${selection.id}` : sql`and state = ${selection.state}`}
    returning id`;
  return rows.map((row) => Number(row.id));
}
