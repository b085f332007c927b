import type { Sql } from '../db/client.js';
import type { Delivery } from './delivery.js';

/** Statuses a sale can reach twice (PAGO↔MED, PAGO↔CHARGEBACK). */
const CYCLE_STATUSES: ReadonlySet<string> = new Set(['PAGO', 'MED', 'CHARGEBACK']);

export type StoreResult =
  | { readonly kind: 'accepted'; readonly id: number }
  | { readonly kind: 'quarantined'; readonly id: number }
  | { readonly kind: 'duplicate'; readonly id: number };

export interface StoreOptions {
  readonly dedupeWindowHours: number;
}

/**
 * Stores a delivery durably and decides, in Postgres, whether it is a duplicate (docs/gateway.md
 * 6).
 *
 * One statement claims the (channel, event key) in inbox_dedupe_keys and inserts the inbox
 * row: a concurrent identical delivery blocks on the key until the first commits, then finds
 * it and becomes a duplicate. When the window since the first delivery has passed, the claim
 * is taken over and the delivery is new again. Returns only after the commit.
 */
export async function storeDelivery(
  sql: Sql,
  delivery: Delivery,
  options: StoreOptions,
): Promise<StoreResult> {
  const n = delivery.notice;
  const inserted = await sql<{ id: string }[]>`
    with claim as (
      insert into inbox_dedupe_keys as d (channel, event_key, inbox_event_id, first_received_at)
      values (${delivery.channel}, ${delivery.eventKey}, nextval('inbox_events_id_seq'), now())
      on conflict (channel, event_key) do update
        set inbox_event_id = excluded.inbox_event_id,
            first_received_at = excluded.first_received_at
        where d.first_received_at < now() - make_interval(hours => ${options.dedupeWindowHours})
      returning inbox_event_id
    )
    insert into inbox_events (${inboxColumns(sql)})
    select ${inboxValues(sql, delivery)} from claim, ${withBody(sql, delivery)}
    returning id`;
  const first = inserted[0];
  if (first) {
    return { kind: n ? 'accepted' : 'quarantined', id: Number(first.id) };
  }
  if (mayRecycleKey(delivery)) {
    const recycled = await recycleKey(sql, delivery);
    if (recycled !== null) return { kind: 'accepted', id: recycled };
  }
  const original = await sql<{ id: string }[]>`
    update inbox_events e
       set delivery_count = e.delivery_count + 1, last_delivered_at = now()
      from inbox_dedupe_keys d
     where d.channel = ${delivery.channel} and d.event_key = ${delivery.eventKey}
       and e.id = d.inbox_event_id
    returning e.id`;
  if (original[0]) return { kind: 'duplicate', id: Number(original[0].id) };
  return { kind: 'duplicate', id: await keyOwner(sql, delivery.channel, delivery.eventKey) };
}

/** Whether a delivery whose key is taken may still be a new event (see recycleKey). */
export function mayRecycleKey(delivery: Delivery): boolean {
  const n = delivery.notice;
  return n?.kind === 'sale' && CYCLE_STATUSES.has(n.status);
}

/**
 * PAGO → MED → PAGO notifies PAGO twice with one key. When the first delivery of the key is
 * finished and the sale has since moved to another status, this is a new event, not a
 * duplicate: take the key over and store the delivery (a truly late copy is then judged by the
 * state machine). Returns the new row's id, or null when the key stays the first's.
 */
export async function recycleKey(sql: Sql, delivery: Delivery): Promise<number | null> {
  const n = delivery.notice;
  if (!n || !mayRecycleKey(delivery)) return null;
  const recycled = await sql<{ id: string }[]>`
    with claim as (
      update inbox_dedupe_keys d
         set inbox_event_id = nextval('inbox_events_id_seq'), first_received_at = now()
        from inbox_events e, sales s
       where d.channel = ${delivery.channel} and d.event_key = ${delivery.eventKey}
         and e.id = d.inbox_event_id and e.state <> 'pending'
         and s.id = ${n.id} and s.status <> ${n.status}
      returning d.inbox_event_id
    )
    insert into inbox_events (${inboxColumns(sql)})
    select ${inboxValues(sql, delivery)} from claim, ${withBody(sql, delivery)}
    returning id`;
  return recycled[0] ? Number(recycled[0].id) : null;
}

/**
 * A duplicate's dedupe key was deleted (a prune) between the statements of its store. Nothing
 * was acknowledged: like an outage, the ingress spools the delivery to store it again (without
 * a spool it answers 503 and the gateway delivers it again).
 */
export class DedupeKeyVanishedError extends Error {
  override readonly name = 'DedupeKeyVanishedError';
  constructor(
    readonly channel: string,
    readonly eventKey: string,
  ) {
    super(`dedupe key ${eventKey} vanished mid-store`);
  }
}

/**
 * The inbox row a dedupe key points to, for a duplicate whose row was not found under it.
 * The key vanished between two statements (a prune): never acknowledge with a made-up id.
 */
export async function keyOwner(sql: Sql, channel: string, eventKey: string): Promise<number> {
  const claim = await sql<{ inbox_event_id: string }[]>`
    select inbox_event_id from inbox_dedupe_keys
     where channel = ${channel} and event_key = ${eventKey}`;
  const firstId = claim[0]?.inbox_event_id;
  if (firstId === undefined) throw new DedupeKeyVanishedError(channel, eventKey);
  return Number(firstId);
}

function inboxColumns(sql: Sql) {
  return sql`
    id, channel, resource_type, resource_id, notified_status, event_key, raw_body, payload,
    body_sha256, headers, source_address, state, quarantine_reason, outcome, enqueued_at,
    processed_at`;
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
    ${delivery.bodySha256}::text,
    ${JSON.stringify(delivery.headers)}::jsonb, ${delivery.sourceAddress}::text, ${state}::text,
    ${delivery.quarantineReason}::text, ${n ? null : 'unparseable'}::text,
    ${n ? sql`now()` : null}::timestamptz, ${n ? null : sql`now()`}::timestamptz`;
}
