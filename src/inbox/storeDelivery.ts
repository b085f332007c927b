import type { Sql } from '../db/client.js';
import type { Delivery } from './delivery.js';
import {
  claimAndInsert,
  countDuplicate,
  keyOwner as ownerOfKey,
  takeKeyOver,
} from './sql/store.js';

/** Statuses a sale can reach twice (PAGO↔MED, PAGO↔CHARGEBACK). */
const CYCLE_STATUSES: ReadonlySet<string> = new Set(['PAGO', 'MED', 'CHARGEBACK']);

export type StoreResult =
  /**
   * `recordKnown`: for a webhook, whether the mirror has the record it names (its confirmation
   * waits in the lane of known records, else in the lane of unknown ids); null otherwise.
   */
  | { readonly kind: 'accepted'; readonly id: number; readonly recordKnown: boolean | null }
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
  const stored = await claimAndInsert(sql, delivery, options.dedupeWindowHours);
  if (stored !== null) {
    return delivery.notice
      ? { kind: 'accepted', id: stored.id, recordKnown: stored.recordKnown }
      : { kind: 'quarantined', id: stored.id };
  }
  if (mayRecycleKey(delivery)) {
    const recycled = await recycleKey(sql, delivery);
    // A key is taken over only from a sale the mirror has.
    if (recycled !== null) return { kind: 'accepted', id: recycled, recordKnown: true };
  }
  const original = await countDuplicate(sql, delivery.channel, delivery.eventKey);
  if (original !== null) return { kind: 'duplicate', id: original };
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
  return takeKeyOver(sql, { ...delivery, notice: n });
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
  const owner = await ownerOfKey(sql, channel, eventKey);
  if (owner === null) throw new DedupeKeyVanishedError(channel, eventKey);
  return owner;
}
