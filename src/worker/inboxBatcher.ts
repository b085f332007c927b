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

interface Waiting {
  readonly id: number;
  resolve(result: ProcessResult): void;
  reject(error: unknown): void;
}

/**
 * Gathers the rows of the jobs a worker runs at once into batches. There is no timer: a row
 * that finds no batch running starts one at once, and the rows that come while batches run
 * make up the next one, so a quiet worker answers as fast as before and a busy one writes
 * many rows per transaction. A batch that fails is run again row by row, so one bad row
 * fails only its own job.
 */
export function createInboxBatcher(options: InboxBatcherOptions) {
  const maxBatch = Math.max(1, options.maxBatch);
  let waiting: Waiting[] = [];
  let inFlight = 0;

  // Rows run alone outside the batch slots: a gateway GET must not hold up the batches.
  const alone = (item: Waiting) => {
    options.runAlone(item.id).then(item.resolve, item.reject);
  };

  const runBatch = async (batch: Waiting[]) => {
    let results: Map<number, BatchItemResult>;
    try {
      results = await options.runBatch(batch.map((item) => item.id));
    } catch (error) {
      options.onBatchFailure(error, batch.length);
      batch.forEach(alone);
      return;
    }
    for (const item of batch) {
      const result = results.get(item.id);
      if (!result || result.kind === 'alone') alone(item);
      else item.resolve(result);
    }
  };

  const pump = () => {
    while (inFlight < options.maxInFlight && waiting.length > 0) {
      const batch = waiting.slice(0, maxBatch);
      waiting = waiting.slice(batch.length);
      inFlight += 1;
      void runBatch(batch).finally(() => {
        inFlight -= 1;
        pump();
      });
    }
  };

  return {
    /** Resolves with this row's result once its transaction committed. */
    process(id: number): Promise<ProcessResult> {
      return new Promise<ProcessResult>((resolve, reject) => {
        waiting.push({ id, resolve, reject });
        pump();
      });
    },
  };
}

export type InboxBatcher = ReturnType<typeof createInboxBatcher>;
