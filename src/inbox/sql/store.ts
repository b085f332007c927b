import type { Fragment, Sql } from '../../db/client.js';
import { recordKnown, saleMovedFrom } from '../../mirror/sql/records.js';
import type { Delivery } from '../delivery.js';

/**
 * The ingress's statements on `inbox_events` and `inbox_dedupe_keys` for one delivery: stored
 * and its dedupe key claimed in one statement (storeBatch.ts: many deliveries at once).
 */

/**
 * Claims the delivery's (channel, event key) and inserts its inbox row; returns the row's id,
 * or null when the key was taken (within the window) by an earlier delivery. A concurrent
 * identical delivery blocks on the key until the first commits, then finds it. Once the window
 * since the first delivery has passed, the claim is taken over.
 */
export async function claimAndInsert(
  sql: Sql,
  delivery: Delivery,
  dedupeWindowHours: number,
): Promise<StoredRow | null> {
  const [inserted] = await sql<StoredRow[]>`
    with claim as (
      insert into inbox_dedupe_keys as d (channel, event_key, inbox_event_id, first_received_at)
      values (${delivery.channel}, ${delivery.eventKey}, nextval('inbox_events_id_seq'), now())
      on conflict (channel, event_key) do update
        set inbox_event_id = excluded.inbox_event_id,
            first_received_at = excluded.first_received_at
        where d.first_received_at < now() - make_interval(hours => ${dedupeWindowHours})
      returning inbox_event_id
    )
    insert into inbox_events (${inboxColumns(sql)})
    select ${inboxValues(sql, delivery)} from claim, ${withBody(sql, delivery)}
    returning id, ${webhookRecordKnown(sql)} as "recordKnown"`;
  return inserted ? { id: Number(inserted.id), recordKnown: inserted.recordKnown } : null;
}

/** A stored row, and whether the mirror has the record a webhook names (null otherwise). */
export interface StoredRow {
  readonly id: number;
  readonly recordKnown: boolean | null;
}

/**
 * Whether the mirror has the record an inserted webhook names (the mirror's recordKnown, in the
 * RETURNING of the insert): where its confirmation waits, at the cost of one primary-key probe.
 * Null for postbacks and unparsed rows, which do not wait on a confirmation.
 */
export function webhookRecordKnown(sql: Sql, row: string = 'inbox_events'): Fragment {
  const column = (name: string) => sql`${sql(`${row}.${name}`)}`;
  return sql`case when ${column('channel')} = 'webhook' and ${column('resource_id')} is not null
                  then ${recordKnown(sql, column('resource_type'), column('resource_id'))} end`;
}

/** Counts a duplicate on the row its key points to; that row's id, or null when none. */
export async function countDuplicate(
  sql: Sql,
  channel: string,
  eventKey: string,
): Promise<number | null> {
  const [original] = await sql<{ id: number }[]>`
    update inbox_events e
       set delivery_count = e.delivery_count + 1, last_delivered_at = now()
      from inbox_dedupe_keys d
     where d.channel = ${channel} and d.event_key = ${eventKey}
       and e.id = d.inbox_event_id
    returning e.id`;
  return original ? Number(original.id) : null;
}

/**
 * Takes a sale delivery's key over from a finished delivery when the sale has since moved to
 * another status (a new event under the same key, PAGO → MED → PAGO), and stores it; the new
 * row's id, or null when the key stays the first's.
 */
export async function takeKeyOver(
  sql: Sql,
  delivery: Delivery & { readonly notice: { readonly id: number; readonly status: string } },
): Promise<number | null> {
  const [recycled] = await sql<{ id: number }[]>`
    with claim as (
      update inbox_dedupe_keys d
         set inbox_event_id = nextval('inbox_events_id_seq'), first_received_at = now()
        from inbox_events e
       where d.channel = ${delivery.channel} and d.event_key = ${delivery.eventKey}
         and e.id = d.inbox_event_id and e.state <> 'pending'
         and ${saleMovedFrom(sql, delivery.notice.id, delivery.notice.status)}
      returning d.inbox_event_id
    )
    insert into inbox_events (${inboxColumns(sql)})
    select ${inboxValues(sql, delivery)} from claim, ${withBody(sql, delivery)}
    returning id`;
  return recycled ? Number(recycled.id) : null;
}

/** The inbox row a dedupe key points to; null when there is no such key. */
export async function keyOwner(
  sql: Sql,
  channel: string,
  eventKey: string,
): Promise<number | null> {
  const [claim] = await sql<{ inbox_event_id: number }[]>`
    select inbox_event_id from inbox_dedupe_keys
     where channel = ${channel} and event_key = ${eventKey}`;
  return claim ? Number(claim.inbox_event_id) : null;
}

function inboxColumns(sql: Sql) {
  return sql`
    id, channel, resource_type, resource_id, notified_status, event_key, raw_body, payload,
    body_sha256, body_bytes, body_truncated, headers, source_address, state, quarantine_reason,
    outcome, enqueued_at, processed_at`;
}

/** The body, sent once: `b.body` is the raw_body, and the payload too when it is its text. */
function withBody(sql: Sql, delivery: Delivery) {
  return sql`(select ${delivery.rawBody}::bytea as body) as b`;
}

/** The values of inboxColumns, the id taken from the claim's inbox_event_id (with withBody). */
function inboxValues(sql: Sql, delivery: Delivery) {
  const n = delivery.notice;
  const state = n ? 'pending' : 'quarantined';
  const source = delivery.payloadSource;
  return sql`
    ${sql('inbox_event_id')}, ${delivery.channel}::text, ${n?.kind ?? null}::text, ${n?.id ?? null}::bigint,
    ${n?.status ?? null}::text, ${delivery.eventKey}::text, b.body,
    case when ${source.kind === 'body'}::boolean then convert_from(b.body, 'UTF8')::jsonb
         else ${source.kind === 'json' ? source.json : null}::jsonb end,
    ${delivery.bodySha256}::text, ${delivery.bodyBytes}::int, ${delivery.bodyTruncated}::boolean,
    ${JSON.stringify(delivery.headers)}::jsonb, ${delivery.sourceAddress}::text, ${state}::text,
    ${delivery.quarantineReason}::text, ${n ? null : 'unparseable'}::text,
    ${n ? sql`now()` : null}::timestamptz, ${n ? null : sql`now()`}::timestamptz`;
}
