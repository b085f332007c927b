import type { Sql } from '../../src/db/client.js';
import { createBatchedStore, type BatchedStore } from '../../src/inbox/batchedStore.js';
import type { Delivery } from '../../src/inbox/delivery.js';
import type { StoreOptions, StoreResult } from '../../src/inbox/storeDelivery.js';

export * from '../../src/inbox/storeDelivery.js';

/** storeDelivery's signature, answered by one batched store per connection pool. */
const stores = new WeakMap<Sql, BatchedStore>();
const maxWaitMs = Number(process.env.BENCH_BATCH_WAIT_MS ?? 2);
const maxBatch = Number(process.env.BENCH_BATCH_MAX ?? 64);

export function storeDelivery(
  sql: Sql,
  delivery: Delivery,
  options: StoreOptions,
): Promise<StoreResult> {
  let store = stores.get(sql);
  if (!store) {
    store = createBatchedStore(sql, {
      dedupeWindowHours: options.dedupeWindowHours,
      maxBatch,
      maxWaitMs,
      onBatchFailure: (error, size) =>
        process.stderr.write(`batched store: a batch of ${size} failed: ${String(error)}\n`),
    });
    stores.set(sql, store);
  }
  return store.store(delivery);
}
