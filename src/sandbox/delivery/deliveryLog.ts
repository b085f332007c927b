/**
 * A bounded log of delivery attempts, newest last, for GET /_sandbox/deliveries.
 */
export type DeliveryChannel = 'webhook' | 'postback';

export type DeliveryOutcome = 'delivered' | 'retrying' | 'gave_up' | 'dropped';

export interface DeliveryAttemptEntry {
  readonly deliveryId: number;
  readonly channel: DeliveryChannel;
  readonly url: string;
  readonly resource: 'sale' | 'withdrawal';
  readonly resourceId: number;
  readonly notifiedStatus: string;
  /** The exact bytes sent (or that would have been sent, for a dropped notification). */
  readonly body: string;
  readonly signature: string | null;
  /** 1 for the first attempt; 0 for a dropped notification, which is never attempted. */
  readonly attempt: number;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly outcome: DeliveryOutcome;
  /** Faults applied to this delivery: duplicate, reorder, delay, drop, badSignature. */
  readonly faults: readonly string[];
  readonly at: string;
}

export interface DeliveryLog {
  append(entry: DeliveryAttemptEntry): void;
  list(): readonly DeliveryAttemptEntry[];
  clear(): void;
}

export function createDeliveryLog(limit: number): DeliveryLog {
  let entries: DeliveryAttemptEntry[] = [];
  return {
    append(entry) {
      entries.push(entry);
      if (entries.length > limit) entries = entries.slice(entries.length - limit);
    },
    list: () => entries,
    clear() {
      entries = [];
    },
  };
}
