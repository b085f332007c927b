import { createMicroBatcher } from '../lib/microBatcher.js';
import type { BatchItemResult } from './processInboxBatch.js';
import type { ProcessResult } from './workerOutcome.js';

export interface InboxBatcherOptions {
  /** Most rows in one transaction. */
  readonly maxBatch: number;
  /** Batches running at once: while they run, new rows gather for the next one. */
  readonly maxInFlight: number;
  /** Applies rows together (processInboxBatch). */
  readonly runBatch: (ids: readonly number[]) => Promise<Map<number, BatchItemResult>>;
  /** Applies one row on its own (processInboxEvent): rows that need the gateway, or a failed batch. */
  readonly runAlone: (id: number) => Promise<ProcessResult>;
  readonly onBatchFailure: (error: unknown, size: number) => void;
}

export interface InboxBatcher {
  /** Resolves with this row's result once its transaction committed. */
  process(id: number): Promise<ProcessResult>;
  close(): Promise<void>;
}

export class InboxBatcherClosedError extends Error {
  override readonly name = 'InboxBatcherClosedError';
  constructor() {
    super('the worker is closing');
  }
}

/**
 * Gathers the rows of the jobs a worker runs at once into batches, with no timer: a row that
 * finds a batch slot free leaves at the end of the event loop's turn, and the rows that come
 * while the slots are taken make up the next batch. A quiet worker answers as fast as one row
 * at a time; a busy one writes many rows per transaction. A batch that fails is run again row
 * by row, so one bad row fails only its own job.
 */
export function createInboxBatcher(options: InboxBatcherOptions): InboxBatcher {
  const batcher = createMicroBatcher<number, ProcessResult>(
    async (batch) => {
      // Rows run alone outside the batch slots: a gateway GET must not hold up the batches.
      const alone = (id: number, index: number) => {
        const pending = batch[index]!;
        options.runAlone(id).then(pending.resolve, pending.reject);
      };
      const ids = batch.map((pending) => pending.item);
      let results: Map<number, BatchItemResult>;
      try {
        results = await options.runBatch(ids);
      } catch (error) {
        options.onBatchFailure(error, batch.length);
        ids.forEach(alone);
        return;
      }
      ids.forEach((id, index) => {
        const result = results.get(id);
        if (!result || result.kind === 'alone') alone(id, index);
        else batch[index]!.resolve(result);
      });
    },
    { maxBatch: options.maxBatch, maxWaitMs: 0, maxInFlight: options.maxInFlight },
    () => new InboxBatcherClosedError(),
  );
  return { process: (id) => batcher.add(id), close: () => batcher.close() };
}
