import type { Pending } from '../lib/microBatcher.js';
import { CONFIRMATIONS_QUEUE } from '../queue/catalog.js';
import { createRecentReads } from './gatewayReads.js';
import { createInboxBatcher, runRows } from './inboxBatcher.js';
import { startLaneWorker, type LaneWorkerDeps } from './laneWorker.js';
import type { RunningLane } from './notificationWorker.js';
import { processInboxBatch } from './processInboxBatch.js';
import type { LaneResult } from './workerOutcome.js';

/** Batch transactions a confirmation worker runs at once. */
const BATCHES_IN_FLIGHT = 2;
/**
 * A row read from the gateway can find, under the lock, that it needs another read (the mirror
 * moved meanwhile); past this many rounds its job fails and retries later.
 */
const MAX_READ_ROUNDS = 3;

export class ReadRoundsExhaustedError extends Error {
  override readonly name = 'ReadRoundsExhaustedError';
  constructor(id: number) {
    super(`inbox row ${id}: the mirror kept moving while its gateway read was in flight`);
  }
}

export interface ConfirmationLaneDeps extends LaneWorkerDeps {
  /** Jobs at once: each batch reads its records (one GET per record) under the gateway budget. */
  readonly concurrency: number;
}

/**
 * The confirmation lane (queue `confirmations`): reads the gateway first, one GET per record
 * however many rows of the batch wait on it, then applies the rows like the signed lane. Its
 * pace is the gateway budget (GATEWAY_MAX_RPS, shared by every process); its slots are its own.
 */
export function startConfirmationWorker(deps: ConfirmationLaneDeps): RunningLane {
  const recentReads = createRecentReads();
  const run = (ids: readonly number[], options: { read: boolean }) =>
    processInboxBatch({ ...deps, recentReads }, ids, options);
  const onBatchFailure = (error: unknown, size: number) =>
    deps.logger.warn(
      { err: error, size },
      'confirmation batch failed; reading its rows one by one',
    );
  const readAgain = (rows: readonly Pending<number, LaneResult>[], round: number): void => {
    if (round > MAX_READ_ROUNDS) {
      for (const row of rows) row.reject(new ReadRoundsExhaustedError(row.item));
      return;
    }
    void runRows(
      rows,
      { read: true },
      { run, onBatchFailure, forward: (again) => readAgain(again, round + 1) },
    );
  };
  const batcher = createInboxBatcher({
    read: true,
    maxBatch: deps.concurrency,
    maxInFlight: BATCHES_IN_FLIGHT,
    run,
    onBatchFailure,
    forward: (rows) => readAgain(rows, 2),
  });
  const worker = startLaneWorker(CONFIRMATIONS_QUEUE, batcher, deps.concurrency, deps);
  return {
    worker,
    async close() {
      await worker.close();
      await batcher.close();
    },
  };
}
