import { isUtf8 } from 'node:buffer';
import type { Fragment, Sql } from '../../db/client.js';
import type { Delivery } from '../delivery.js';
import { webhookRecordKnown } from './store.js';

/**
 * The ingress's statements for many deliveries at once: the multi-row forms of claimAndInsert
 * and countDuplicate (store.ts), one statement each whatever the number of deliveries.
 */

/** What the multi-row claim says of one key: the row it points to, and whether it is new. */
export interface BatchClaim {
  /** The delivery's index in the batch. */
  readonly o: number;
  readonly id: number;
  readonly claimed: boolean;
  /** A claimed webhook's: whether the mirror has its record (store.ts, webhookRecordKnown). */
  readonly recordKnown: boolean | null;
}

/**
 * The multi-row form of claimAndInsert (store.ts): `deliveries[i]` is claimed and inserted under its key,
 * every key once (the same key twice in one INSERT … ON CONFLICT is an error), in one order in
 * every batch so that two batches cannot deadlock on them. The claim always updates (to the
 * same values inside the window) so that RETURNING names the row of every key, claimed or not;
 * a key is the delivery's when it points at the id drawn for it.
 */
export async function claimAndInsertBatch(
  sql: Sql,
  deliveries: readonly Delivery[],
  dedupeWindowHours: number,
): Promise<BatchClaim[]> {
  const rows: string[] = [];
  let bodyAt = 0;
  for (const [index, delivery] of deliveries.entries()) {
    rows.push(rowJson(index, delivery, bodyAt));
    bodyAt += delivery.rawBody.length;
  }
  const bodies = Buffer.concat(
    deliveries.map((delivery) => delivery.rawBody),
    bodyAt,
  );
  return await sql<BatchClaim[]>`
    with input as (
      select r.*, substring(${bodiesParameter(sql, bodies)} from r.body_at + 1 for r.body_length) as body,
             nextval('inbox_events_id_seq') as candidate_id
        from json_to_recordset(${`[${rows.join(',')}]`}::json) as r(
          o int, channel text, event_key text, resource_type text, resource_id bigint,
          notified_status text, body_at int, body_length int, payload json,
          body_is_payload boolean, body_sha256 text, body_bytes int, body_truncated boolean,
          headers jsonb, source_address text,
          quarantine_reason text, understood boolean)
    ),
    claim as (
      insert into inbox_dedupe_keys as d (channel, event_key, inbox_event_id, first_received_at)
      select channel, event_key, candidate_id, now() from input order by o
      on conflict (channel, event_key) do update
        set inbox_event_id = case when d.first_received_at < now() - make_interval(hours => ${dedupeWindowHours})
                                  then excluded.inbox_event_id else d.inbox_event_id end,
            first_received_at = case when d.first_received_at < now() - make_interval(hours => ${dedupeWindowHours})
                                     then excluded.first_received_at else d.first_received_at end
      returning channel, event_key, inbox_event_id
    ),
    inserted as (
      insert into inbox_events (
        id, channel, resource_type, resource_id, notified_status, event_key, raw_body, payload,
        body_sha256, body_bytes, body_truncated, headers, source_address, state,
        quarantine_reason, outcome, enqueued_at, processed_at
      )
      select i.candidate_id, i.channel, i.resource_type, i.resource_id, i.notified_status,
             i.event_key, i.body,
             -- A compact body is its payload's JSON text (see rowJson): parsed once, here.
             case when i.body_is_payload then convert_from(i.body, 'UTF8')::jsonb
                  else i.payload::jsonb end,
             i.body_sha256, i.body_bytes, i.body_truncated, i.headers,
             i.source_address, case when i.understood then 'pending' else 'quarantined' end,
             i.quarantine_reason, case when i.understood then null else 'unparseable' end,
             case when i.understood then now() end, case when i.understood then null else now() end
        from input i
        join claim c on c.channel = i.channel and c.event_key = i.event_key
                    and c.inbox_event_id = i.candidate_id
      returning id
    )
    select i.o, c.inbox_event_id as id, c.inbox_event_id = i.candidate_id as claimed,
           case when c.inbox_event_id = i.candidate_id then ${webhookRecordKnown(sql, 'i')} end
             as "recordKnown"
      from input i join claim c on c.channel = i.channel and c.event_key = i.event_key`;
}

/**
 * The batch's bodies as one bytea expression. postgres.js sends a Buffer as hex text, twice its
 * size (a V8 large object per batch, twice the bytes for Postgres to decode). UTF-8 bodies, as
 * the gateway's are, go as text (JSON that JSON.parse read holds no NUL byte) and are converted
 * back once: the subquery is an init plan, not a conversion per row.
 */
function bodiesParameter(sql: Sql, bodies: Buffer): Fragment {
  return isUtf8(bodies)
    ? sql`(select convert_to(${bodies.toString('utf8')}::text, 'UTF8'))`
    : sql`${bodies}::bytea`;
}

/**
 * One input row. The bodies travel apart, as one bytea parameter that each row slices by its
 * offset and length. A body Postgres can take as it is (payloadSource 'body', as the gateway's
 * are) is the payload too: Postgres parses its slice once, into the jsonb column. Spliced into
 * the document as JSON, a payload was parsed four times (the document, the recordset, the json
 * column, the jsonb cast). Other payloads (a body with `\u` escapes or exponents, or invalid
 * UTF-8) are spliced into the document as JSON.
 */
function rowJson(index: number, delivery: Delivery, bodyAt: number): string {
  const n = delivery.notice;
  const source = delivery.payloadSource;
  const bodyIsPayload = source.kind === 'body';
  const scalars = JSON.stringify({
    o: index,
    channel: delivery.channel,
    event_key: delivery.eventKey,
    resource_type: n?.kind ?? null,
    resource_id: n?.id ?? null,
    notified_status: n?.status ?? null,
    body_at: bodyAt,
    body_length: delivery.rawBody.length,
    body_is_payload: bodyIsPayload,
    body_sha256: delivery.bodySha256,
    body_bytes: delivery.bodyBytes,
    body_truncated: delivery.bodyTruncated,
    source_address: delivery.sourceAddress,
    quarantine_reason: delivery.quarantineReason,
    understood: n !== null,
  });
  const headers = JSON.stringify(delivery.headers);
  const payload = source.kind === 'json' ? source.json : 'null';
  return `${scalars.slice(0, -1)},"payload":${payload},"headers":${headers}}`;
}

/**
 * Counts each key's duplicates (`count` deliveries) on the row the key points to, in a statement
 * of its own: run after the claim committed, it sees the first delivery's row. `o` is each
 * key's index in `keys`.
 */
export async function countDuplicatesBatch(
  sql: Sql,
  keys: readonly { readonly channel: string; readonly eventKey: string; readonly count: number }[],
): Promise<{ o: number; id: number }[]> {
  const rows = keys.map(({ channel, eventKey, count }, index) =>
    JSON.stringify({ o: index, channel, event_key: eventKey, n: count }),
  );
  return await sql<{ o: number; id: number }[]>`
    with dup as (
      select * from json_to_recordset(${`[${rows.join(',')}]`}::json)
        as x(o int, channel text, event_key text, n int)
    )
    update inbox_events e
       set delivery_count = e.delivery_count + dup.n, last_delivered_at = now()
      from dup
      join inbox_dedupe_keys d on d.channel = dup.channel and d.event_key = dup.event_key
     where e.id = d.inbox_event_id
    returning dup.o, e.id`;
}
