/** One item waiting in a micro-batch, with the promise of its caller. */
export interface Pending<T, R> {
  readonly item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export interface MicroBatcherOptions {
  /** Most items in one batch; a full batch is handed over at once. */
  readonly maxBatch: number;
  /**
   * How long the first item of a batch waits for others, in milliseconds. 0: only until the
   * end of the event loop's turn, so the requests read together are batched together.
   */
  readonly maxWaitMs: number;
  /**
   * Batches running at once (default: no limit). While the limit is reached, items gather for
   * the next batch: under load batches grow by themselves, with no timer to wait for.
   */
  readonly maxInFlight?: number;
  /**
   * Items that must be waiting before a batch starts beside one already in flight (default 1;
   * a full batch always may). Fewer wait for the batch in flight to finish: a trickle pays one
   * batch's fixed cost at a time, and only a backlog overlaps batches.
   */
  readonly overlapFrom?: number;
}

export interface MicroBatcher<T, R> {
  /** Resolves (or rejects) when the batch holding this item settled it. */
  add(item: T): Promise<R>;
  /** Hands over what is waiting, waits for the batches in flight, refuses new items. */
  close(): Promise<void>;
}

/**
 * Gathers the items of a few milliseconds (or `maxBatch` of them, whichever comes first) and
 * hands them to `run` together, so that one statement or one round trip serves them all.
 * `run` settles each item's promise; an item it left unsettled is rejected with its error.
 */
export function createMicroBatcher<T, R>(
  run: (batch: Pending<T, R>[]) => Promise<void>,
  options: MicroBatcherOptions,
  closedError: () => Error,
): MicroBatcher<T, R> {
  const maxBatch = Math.max(1, options.maxBatch);
  const maxWaitMs = Math.max(0, options.maxWaitMs);
  const maxInFlight = Math.max(1, options.maxInFlight ?? Infinity);
  // A full batch may always start.
  const overlapFrom = Math.min(maxBatch, Math.max(1, options.overlapFrom ?? 1));
  let waiting: Pending<T, R>[] = [];
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  let closed = false;
  const inFlight = new Set<Promise<void>>();

  const flush = () => {
    clearTimeout(timer as NodeJS.Timeout);
    clearImmediate(timer as NodeJS.Immediate);
    timer = undefined;
    while (
      waiting.length > 0 &&
      inFlight.size < maxInFlight &&
      (inFlight.size === 0 || waiting.length >= overlapFrom)
    ) {
      const batch = waiting.slice(0, maxBatch);
      waiting = waiting.slice(batch.length);
      const settled: Promise<void> = run(batch)
        .catch((error: unknown) => batch.forEach((pending) => pending.reject(error)))
        .finally(() => {
          inFlight.delete(settled);
          flush();
        });
      inFlight.add(settled);
    }
  };

  return {
    add(item) {
      if (closed) return Promise.reject(closedError());
      return new Promise<R>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        if (waiting.length >= maxBatch) flush();
        else timer ??= maxWaitMs === 0 ? setImmediate(flush) : setTimeout(flush, maxWaitMs);
      });
    },
    async close() {
      closed = true;
      flush();
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}
