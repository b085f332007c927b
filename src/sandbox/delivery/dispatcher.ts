/**
 * Sends notifications: one HTTP POST per attempt, a receipt is an HTTP 200 and nothing
 * else (docs/gateway.md 6), retries with exponential backoff (retryBaseMs × 2^(attempt−1)) up to
 * maxAttempts, and the transport faults (drop, duplicate, delay, reorder).
 *
 * `pending` counts every delivery not yet finished, whether queued, in flight, waiting
 * for a retry, delayed or held, so that idle() resolves only when nothing can still
 * reach a receiver.
 */
import type {
  DeliveryAttemptEntry,
  DeliveryChannel,
  DeliveryLog,
  DeliveryOutcome,
} from './deliveryLog.js';
import type { FaultInjector } from './faults.js';
import { postOnce } from './httpPost.js';
import type { SandboxLogger } from '../options.js';

const MAX_BACKOFF_MS = 3_600_000;

export interface OutgoingNotification {
  readonly channel: DeliveryChannel;
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly signature: string | null;
  readonly resource: 'sale' | 'withdrawal';
  readonly resourceId: number;
  readonly notifiedStatus: string;
  readonly faults: readonly string[];
}

interface Delivery extends Omit<OutgoingNotification, 'faults'> {
  readonly faults: string[];
  readonly deliveryId: number;
  attempt: number;
}

export interface DispatcherDeps {
  readonly faults: FaultInjector;
  readonly log: DeliveryLog;
  readonly logger: SandboxLogger;
  readonly now: () => Date;
  readonly retryBaseMs: number;
  readonly maxAttempts: number;
  readonly timeoutMs: number;
  readonly concurrency: number;
  readonly reorderMaxHoldMs: number;
}

export interface Dispatcher {
  submit(notification: OutgoingNotification): void;
  /** Deliveries not finished yet. */
  pendingCount(): number;
  idle(): Promise<void>;
  close(): Promise<void>;
}

function backoffMs(retryBaseMs: number, attempt: number): number {
  return Math.min(MAX_BACKOFF_MS, retryBaseMs * 2 ** (attempt - 1));
}

export function createDispatcher(deps: DispatcherDeps): Dispatcher {
  const ready: Delivery[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  const shutdown = new AbortController();
  let held: { deliveries: Delivery[]; timer: NodeJS.Timeout } | null = null;
  let pending = 0;
  let nextDeliveryId = 1;
  let closed = false;
  let idleWaiters: Array<() => void> = [];

  function later(ms: number, run: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
    return timer;
  }

  function wakeIdleWaiters(): void {
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const wake of waiters) wake();
  }

  function finish(): void {
    pending -= 1;
    if (pending === 0) wakeIdleWaiters();
  }

  function record(
    delivery: Delivery,
    fields: { statusCode: number | null; error: string | null; outcome: DeliveryOutcome },
  ): void {
    const { headers: _headers, ...described } = delivery;
    const entry: DeliveryAttemptEntry = { ...described, ...fields, at: deps.now().toISOString() };
    deps.log.append(entry);
  }

  function enqueue(deliveries: readonly Delivery[]): void {
    if (closed) return;
    ready.push(...deliveries);
    pump();
  }

  function releaseAfter(delayMs: number, deliveries: readonly Delivery[]): void {
    if (delayMs > 0) later(delayMs, () => enqueue(deliveries));
    else enqueue(deliveries);
  }

  function takeHeld(): Delivery[] | null {
    if (!held) return null;
    clearTimeout(held.timer);
    timers.delete(held.timer);
    const { deliveries } = held;
    held = null;
    return deliveries;
  }

  function hold(deliveries: Delivery[]): void {
    const timer = later(deps.reorderMaxHoldMs, () => {
      const released = takeHeld();
      if (released) enqueue(released);
    });
    held = { deliveries, timer };
  }

  function pump(): void {
    while (!closed && inFlight.size < deps.concurrency && ready.length > 0) {
      const delivery = ready.shift() as Delivery;
      const sending: Promise<void> = attempt(delivery).finally(() => {
        inFlight.delete(sending);
        pump();
      });
      inFlight.add(sending);
    }
  }

  async function attempt(delivery: Delivery): Promise<void> {
    delivery.attempt += 1;
    const { statusCode, error } = await postOnce(delivery.url, {
      headers: delivery.headers,
      body: delivery.body,
      timeoutMs: deps.timeoutMs,
      signal: shutdown.signal,
    });
    if (closed) return;

    const delivered = statusCode === 200;
    const gaveUp = !delivered && delivery.attempt >= deps.maxAttempts;
    const outcome: DeliveryOutcome = delivered ? 'delivered' : gaveUp ? 'gave_up' : 'retrying';
    record(delivery, { statusCode, error, outcome });
    if (delivered) return finish();
    if (gaveUp) {
      deps.logger.warn(
        {
          deliveryId: delivery.deliveryId,
          url: delivery.url,
          attempts: delivery.attempt,
          statusCode,
          error,
        },
        'notification delivery abandoned',
      );
      return finish();
    }
    later(backoffMs(deps.retryBaseMs, delivery.attempt), () => enqueue([delivery]));
  }

  return {
    submit(notification) {
      if (closed) return;
      const template = { ...notification, faults: [...notification.faults] };
      if (deps.faults.strikes('drop')) {
        const dropped: Delivery = {
          ...template,
          faults: [...template.faults, 'drop'],
          deliveryId: nextDeliveryId++,
          attempt: 0,
        };
        record(dropped, { statusCode: null, error: null, outcome: 'dropped' });
        return;
      }
      const duplicated = deps.faults.strikes('duplicate');
      const delayMs = deps.faults.strikes('delay') ? deps.faults.delayMs() : 0;
      const tags = [
        ...template.faults,
        ...(duplicated ? ['duplicate'] : []),
        ...(delayMs > 0 ? ['delay'] : []),
      ];
      const deliveries: Delivery[] = Array.from({ length: duplicated ? 2 : 1 }, () => ({
        ...template,
        faults: [...tags],
        deliveryId: nextDeliveryId++,
        attempt: 0,
      }));
      pending += deliveries.length;

      const previouslyHeld = takeHeld();
      if (!previouslyHeld && deps.faults.strikes('reorder')) {
        for (const delivery of deliveries) delivery.faults.push('reorder');
        return hold(deliveries);
      }
      releaseAfter(delayMs, deliveries);
      // The held notification goes right after "the next one", delayed or not.
      if (previouslyHeld) releaseAfter(delayMs, previouslyHeld);
    },
    pendingCount: () => pending,
    idle() {
      if (pending === 0 || closed) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
    async close() {
      closed = true;
      shutdown.abort();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      held = null;
      ready.length = 0;
      await Promise.allSettled([...inFlight]);
      pending = 0;
      wakeIdleWaiters();
    },
  };
}
