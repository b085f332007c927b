/** One item waiting in a micro-batch, with the promise of its caller. */
export interface Pending<T, R> {
  readonly item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export interface MicroBatcherOptions {
  /** Most items in one batch; a full batch is handed over at once. */
  readonly maxBatch: number;
  /** How long the first item of a batch waits for others, in milliseconds. */
  readonly maxWaitMs: number;
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
  let waiting: Pending<T, R>[] = [];
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const inFlight = new Set<Promise<void>>();

  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (waiting.length === 0) return;
    const batch = waiting;
    waiting = [];
    const settled = run(batch)
      .catch((error: unknown) => batch.forEach((pending) => pending.reject(error)))
      .finally(() => inFlight.delete(settled));
    inFlight.add(settled);
  };

  return {
    add(item) {
      if (closed) return Promise.reject(closedError());
      return new Promise<R>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        if (waiting.length >= maxBatch) flush();
        else timer ??= setTimeout(flush, maxWaitMs);
      });
    },
    async close() {
      closed = true;
      flush();
      await Promise.all(inFlight);
    },
  };
}
