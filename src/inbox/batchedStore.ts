import type { Sql } from '../db/client.js';
import { createMicroBatcher, type Pending } from '../lib/microBatcher.js';
import type { Delivery } from './delivery.js';
import {
  keyOwner,
  mayRecycleKey,
  recycleKey,
  storeDelivery,
  type StoreOptions,
  type StoreResult,
} from './storeDelivery.js';
import { InvariantError } from '../lib/invariantError.js';

export interface BatchedStoreOptions extends StoreOptions {
  /** Most deliveries in one statement; a full batch is sent at once. Default 64. */
  readonly maxBatch?: number;
  /** How long the first delivery of a batch waits for others. Default 2 ms. */
  readonly maxWaitMs?: number;
  /** Statements in flight at once (default: no limit); see createMicroBatcher. */
  readonly maxInFlight?: number;
  /**
   * Most body bytes in one statement (default 16 MiB); a batch over it is stored delivery by
   * delivery, so one statement's parameter stays bounded whatever BODY_LIMIT_BYTES allows. The
   * bodies travel as one bytea parameter, which postgres.js sends as hex text: a string twice
   * their size, which V8 caps (a statement it fails to serialize fails the query in flight on
   * that connection instead).
   */
  readonly maxBodyBytes?: number;
  /** Told when a batch statement failed (its deliveries are then stored one by one). */
  readonly onBatchFailure?: (error: unknown, size: number) => void;
  /**
   * Whether a failed batch is retried delivery by delivery (default: always). Return false for
   * errors every delivery would meet too (Postgres unreachable): the callers then get the
   * batch's error at once instead of after one more timeout each.
   */
  readonly retryOneByOne?: (error: unknown) => boolean;
}

export interface BatchedStore {
  /** Same answer as storeDelivery; resolves only after this delivery's row committed. */
  store(delivery: Delivery): Promise<StoreResult>;
  /** Stores what is waiting, waits for the statements in flight, refuses new deliveries. */
  close(): Promise<void>;
}

export class BatchedStoreClosedError extends Error {
  override readonly name = 'BatchedStoreClosedError';
  constructor() {
    super('the batched inbox store is closed');
  }
}

type Waiting = Pending<Delivery, StoreResult>;

/**
 * storeDelivery for many deliveries at once: the deliveries of a few milliseconds share one
 * statement, so one commit (one WAL flush) and one round trip serve them all. Same decisions
 * as storeDelivery, including two identical deliveries in one batch (the first is stored, the
 * others are its duplicates). A batch whose statement fails is stored delivery by delivery
 * with storeDelivery, so one bad row fails only its own caller.
 */
export function createBatchedStore(sql: Sql, options: BatchedStoreOptions): BatchedStore {
  const batcher = createMicroBatcher<Delivery, StoreResult>(
    (batch) => storeBatch(sql, batch, options),
    {
      maxBatch: options.maxBatch ?? 64,
      maxWaitMs: options.maxWaitMs ?? 2,
      ...(options.maxInFlight ? { maxInFlight: options.maxInFlight } : {}),
    },
    () => new BatchedStoreClosedError(),
  );
  return { store: (delivery) => batcher.add(delivery), close: () => batcher.close() };
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Settles every caller of the batch; never rejects. */
async function storeBatch(sql: Sql, batch: Waiting[], options: BatchedStoreOptions): Promise<void> {
  if (batch.length === 1) return storeOneByOne(sql, batch, options);
  // One row per logical key: the same key twice in one INSERT … ON CONFLICT is an error.
  const groups = new Map<string, Waiting[]>();
  for (const pending of batch) {
    const key = keyOf(pending.item);
    const group = groups.get(key);
    if (group) group.push(pending);
    else groups.set(key, [pending]);
  }
  // Keys are claimed in one order by every batch, so two batches cannot deadlock on them.
  const keys = [...groups.keys()].sort();
  // The statement inserts one delivery a key: a key's duplicates send no body.
  const firsts = keys.map((key) => firstDelivery(groups.get(key)));
  if (bodyBytes(firsts) > (options.maxBodyBytes ?? MAX_BODY_BYTES)) {
    return storeOneByOne(sql, batch, options);
  }
  let claims: Map<string, Claim>;
  try {
    claims = await claimAndInsert(sql, keys, firsts, options.dedupeWindowHours);
  } catch (error) {
    return fallBack(sql, batch, options, error);
  }
  const duplicates = new Map<string, Waiting[]>();
  const recycling: Promise<void>[] = [];
  for (const key of keys) {
    const group = groups.get(key) ?? [];
    const claim = claims.get(key);
    const [first, ...rest] = group;
    if (!claim || !first) {
      await storeOneByOne(sql, group, options);
    } else if (claim.claimed) {
      first.resolve({ kind: first.item.notice ? 'accepted' : 'quarantined', id: claim.id });
      if (rest.length > 0) duplicates.set(key, rest);
    } else if (mayRecycleKey(first.item)) {
      // As storeDelivery: the first may take a finished key over, the rest are its duplicates.
      recycling.push(
        recycleKey(sql, first.item).then(
          (id) => {
            if (id === null) return void duplicates.set(key, group);
            first.resolve({ kind: 'accepted', id });
            if (rest.length > 0) duplicates.set(key, rest);
          },
          (error: unknown) => fallBack(sql, group, options, error),
        ),
      );
    } else {
      duplicates.set(key, group);
    }
  }
  await Promise.all(recycling);
  if (duplicates.size > 0) await settleDuplicates(sql, duplicates, options);
}

interface Claim {
  /** The inbox row the key points to: this delivery's own when claimed, else the first's. */
  readonly id: number;
  readonly claimed: boolean;
}

/**
 * The multi-row form of storeDelivery's statement. The claim always updates (to the same
 * values inside the window) so that RETURNING names the row of every key, claimed or not;
 * a key is ours when it points at the id drawn for it. `deliveries[i]` is inserted under `keys[i]`.
 */
async function claimAndInsert(
  sql: Sql,
  keys: readonly string[],
  deliveries: readonly Delivery[],
  dedupeWindowHours: number,
): Promise<Map<string, Claim>> {
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
  const returned = await sql<{ o: number; id: string; claimed: boolean }[]>`
    with input as (
      select r.*, substring(${bodies}::bytea from r.body_at + 1 for r.body_length) as body,
             nextval('inbox_events_id_seq') as candidate_id
        from json_to_recordset(${`[${rows.join(',')}]`}::json) as r(
          o int, channel text, event_key text, resource_type text, resource_id bigint,
          notified_status text, body_at int, body_length int, payload json,
          body_is_payload boolean, body_sha256 text, headers jsonb, source_address text,
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
        body_sha256, headers, source_address, state, quarantine_reason, outcome, enqueued_at,
        processed_at
      )
      select i.candidate_id, i.channel, i.resource_type, i.resource_id, i.notified_status,
             i.event_key, i.body,
             -- A compact body is its payload's JSON text (see rowJson): parsed once, here.
             case when i.body_is_payload then convert_from(i.body, 'UTF8')::jsonb
                  else i.payload::jsonb end,
             i.body_sha256, i.headers,
             i.source_address, case when i.understood then 'pending' else 'quarantined' end,
             i.quarantine_reason, case when i.understood then null else 'unparseable' end,
             case when i.understood then now() end, case when i.understood then null else now() end
        from input i
        join claim c on c.channel = i.channel and c.event_key = i.event_key
                    and c.inbox_event_id = i.candidate_id
      returning id
    )
    select i.o, c.inbox_event_id as id, c.inbox_event_id = i.candidate_id as claimed
      from input i join claim c on c.channel = i.channel and c.event_key = i.event_key`;
  const claims = new Map<string, Claim>();
  for (const row of returned) {
    const key = keys[row.o];
    if (key !== undefined) claims.set(key, { id: Number(row.id), claimed: row.claimed });
  }
  return claims;
}

/**
 * Counts the duplicates on the row their key points to, as storeDelivery does, in a statement
 * of its own: it runs after the claim committed, so it sees the first delivery's row.
 */
async function settleDuplicates(
  sql: Sql,
  duplicates: ReadonlyMap<string, Waiting[]>,
  options: BatchedStoreOptions,
): Promise<void> {
  const keys = [...duplicates.keys()];
  const rows = keys.map((key, index) => {
    const [channel, eventKey] = splitKey(key);
    const count = duplicates.get(key)?.length ?? 0;
    return JSON.stringify({ o: index, channel, event_key: eventKey, n: count });
  });
  let counted: { o: number; id: string }[];
  try {
    counted = await sql<{ o: number; id: string }[]>`
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
  } catch (error) {
    return fallBack(sql, [...duplicates.values()].flat(), options, error);
  }
  const ids = new Map(counted.map((row) => [keys[row.o], Number(row.id)]));
  const uncounted: Promise<void>[] = [];
  for (const [key, items] of duplicates) {
    const id = ids.get(key);
    if (id !== undefined) {
      for (const item of items) item.resolve({ kind: 'duplicate', id });
      continue;
    }
    // No row under the key: as storeDelivery, the id the key names, or an error if it vanished.
    const [channel, eventKey] = splitKey(key);
    uncounted.push(
      keyOwner(sql, channel, eventKey).then(
        (owner) => items.forEach((item) => item.resolve({ kind: 'duplicate', id: owner })),
        (error: unknown) => items.forEach((item) => item.reject(error)),
      ),
    );
  }
  await Promise.all(uncounted);
}

async function fallBack(
  sql: Sql,
  items: readonly Waiting[],
  options: BatchedStoreOptions,
  error: unknown,
): Promise<void> {
  options.onBatchFailure?.(error, items.length);
  if (options.retryOneByOne && !options.retryOneByOne(error)) {
    for (const item of items) item.reject(error);
    return;
  }
  return storeOneByOne(sql, items, options);
}

async function storeOneByOne(
  sql: Sql,
  items: readonly Waiting[],
  options: StoreOptions,
): Promise<void> {
  await Promise.all(
    items.map((pending) =>
      storeDelivery(sql, pending.item, { dedupeWindowHours: options.dedupeWindowHours }).then(
        pending.resolve,
        pending.reject,
      ),
    ),
  );
}

/** Channel and event key, joined by a character neither can contain at its start. */
function keyOf(delivery: Delivery): string {
  return `${delivery.channel}\n${delivery.eventKey}`;
}

function splitKey(key: string): [string, string] {
  const at = key.indexOf('\n');
  return [key.slice(0, at), key.slice(at + 1)];
}

function bodyBytes(deliveries: readonly Delivery[]): number {
  let bytes = 0;
  for (const delivery of deliveries) bytes += delivery.rawBody.length;
  return bytes;
}

function firstDelivery(group: readonly Waiting[] | undefined): Delivery {
  const delivery = group?.[0]?.item;
  if (!delivery) throw new InvariantError('a batch key without a delivery');
  return delivery;
}

/**
 * One input row. The bodies travel apart, as one bytea parameter that each row slices by its
 * offset and length. A body Postgres can take as it is (payloadSource 'body', as the gateway's
 * are) is the payload too: Postgres parses its slice once, into the jsonb column. Spliced into
 * the document as JSON, a payload was parsed four times (the document, the recordset, the json
 * column, the jsonb cast): 34–36 against 19.5 µs of a backend's CPU a row (32 bench postbacks a
 * statement). Other payloads (a body with `\u` escapes or exponents, or invalid UTF-8) are
 * spliced into the document as JSON.
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
    source_address: delivery.sourceAddress,
    quarantine_reason: delivery.quarantineReason,
    understood: n !== null,
  });
  const headers = JSON.stringify(delivery.headers);
  const payload = source.kind === 'json' ? source.json : 'null';
  return `${scalars.slice(0, -1)},"payload":${payload},"headers":${headers}}`;
}
