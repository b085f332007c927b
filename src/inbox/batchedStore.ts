import type { Sql } from '../db/client.js';
import { createMicroBatcher, type Pending } from '../lib/microBatcher.js';
import type { Delivery } from './delivery.js';
import { claimAndInsertBatch, countDuplicatesBatch } from './sql/storeBatch.js';
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

class BatchedStoreClosedError extends Error {
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
      first.resolve(
        first.item.notice
          ? { kind: 'accepted', id: claim.id, recordKnown: claim.recordKnown }
          : { kind: 'quarantined', id: claim.id },
      );
      if (rest.length > 0) duplicates.set(key, rest);
    } else if (mayRecycleKey(first.item)) {
      // As storeDelivery: the first may take a finished key over, the rest are its duplicates.
      recycling.push(
        recycleKey(sql, first.item).then(
          (id) => {
            if (id === null) return void duplicates.set(key, group);
            first.resolve({ kind: 'accepted', id, recordKnown: true });
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
  readonly recordKnown: boolean | null;
}

/** claimAndInsertBatch's answer by key: `deliveries[i]` is inserted under `keys[i]`. */
async function claimAndInsert(
  sql: Sql,
  keys: readonly string[],
  deliveries: readonly Delivery[],
  dedupeWindowHours: number,
): Promise<Map<string, Claim>> {
  const claims = new Map<string, Claim>();
  for (const row of await claimAndInsertBatch(sql, deliveries, dedupeWindowHours)) {
    const key = keys[row.o];
    if (key !== undefined) {
      claims.set(key, { id: Number(row.id), claimed: row.claimed, recordKnown: row.recordKnown });
    }
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
  let counted: { o: number; id: number }[];
  try {
    counted = await countDuplicatesBatch(
      sql,
      keys.map((key) => {
        const [channel, eventKey] = splitKey(key);
        return { channel, eventKey, count: duplicates.get(key)?.length ?? 0 };
      }),
    );
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
