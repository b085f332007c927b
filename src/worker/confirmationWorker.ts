import type { Pending } from '../lib/microBatcher.js';
import {
  CONFIRMATIONS_QUEUE,
  enqueueNotifications,
  UNKNOWN_IDS_QUEUE,
  type NotificationQueue,
  type NotificationQueueName,
  type RetryPolicy,
} from '../queue/catalog.js';
import { createRecentReads } from './gatewayReads.js';
import { createInboxBatcher, runRows, type InboxBatcherOptions } from './inboxBatcher.js';
import { observeResult, startLaneWorker, type LaneWorkerDeps } from './laneWorker.js';
import { createNotOursRun } from './notOursRun.js';
import type { RunningLane } from './notificationWorker.js';
import { processInboxBatch, type BatchOptions } from './processInboxBatch.js';
import type { LaneResult } from './workerOutcome.js';

/** Batch transactions a confirmation worker runs at once. */
const BATCHES_IN_FLIGHT = 2;
/**
 * A row read from the gateway can find, under the lock, that it needs another read (the mirror
 * moved meanwhile, or the read it joined began before it and does not confirm it); past this
 * many rounds its job fails and retries later.
 */
const MAX_READ_ROUNDS = 3;

class ReadRoundsExhaustedError extends Error {
  override readonly name = 'ReadRoundsExhaustedError';
  constructor(id: number) {
    super(`inbox row ${id}: the mirror kept moving while its gateway read was in flight`);
  }
}

export interface ConfirmationLaneDeps extends LaneWorkerDeps {
  /** Jobs at once: each batch reads its records (one GET per record) under the gateway budget. */
  readonly concurrency: number;
}

export interface KnownRecordsLaneDeps extends ConfirmationLaneDeps {
  /** Where webhooks about records the mirror does not know go. */
  readonly unknownIdsQueue: NotificationQueue;
  readonly retry: RetryPolicy;
}

/**
 * The confirmation lane (queue `confirmations`): webhooks about records the mirror knows (and
 * signed moves on a cycle). Reads the gateway first, one GET per record, which answers every
 * pending webhook of that record, then applies the rows like the signed lane. Its pace is the
 * gateway budget (GATEWAY_MAX_RPS, shared by every process), of which the lane of unknown ids
 * takes a bounded part; its slots are its own. A webhook about a record the mirror does not
 * know (one the ingress could not place: swept, replayed, spooled) is handed to that lane.
 */
export function startConfirmationWorker(deps: KnownRecordsLaneDeps): RunningLane {
  return startReadingLane(CONFIRMATIONS_QUEUE, deps, {
    triage: true,
    forwardUnknown: (rows) =>
      enqueueNotifications(
        deps.unknownIdsQueue,
        rows.map((row) => row.item),
        deps.retry,
      ).then(
        () => rows.forEach((row) => row.resolve({ kind: 'forwarded', to: 'unknownIds' })),
        (error: unknown) => rows.forEach((row) => row.reject(error)),
      ),
  });
}

/**
 * The lane of unknown ids (queue `confirmations-unknown`): webhooks about records the mirror
 * does not know, read like the confirmation lane's but through a gateway client limited to a
 * part of the budget (GATEWAY_UNKNOWN_IDS_PERCENT), so reconciliation, the operator and known
 * records keep the rest. Forged webhooks end here; a run of them raises an alert
 * (paymirror_unknown_webhooks_not_ours_in_a_row).
 */
export function startUnknownIdsWorker(deps: ConfirmationLaneDeps): RunningLane {
  const run = createNotOursRun(deps.metrics.unknownWebhooksNotOursInARow);
  return startReadingLane(UNKNOWN_IDS_QUEUE, deps, { triage: false, onResult: run.observe });
}

interface ReadingLaneOptions {
  /** Hand webhooks about unknown records to the lane of unknown ids (see BatchOptions.triage). */
  readonly triage: boolean;
  readonly forwardUnknown?: (rows: readonly Pending<number, LaneResult>[]) => void;
  readonly onResult?: (result: LaneResult) => void;
}

function startReadingLane(
  queue: NotificationQueueName,
  deps: ConfirmationLaneDeps,
  lane: ReadingLaneOptions,
): RunningLane {
  const recentReads = createRecentReads();
  const run = (ids: readonly number[], options: BatchOptions) =>
    processInboxBatch({ ...deps, recentReads }, ids, options);
  const onResult = lane.onResult ?? (() => {});
  const common: Pick<InboxBatcherOptions, 'run' | 'onBatchFailure' | 'forwardUnknown' | 'onExtra'> =
    {
      run,
      onBatchFailure: (error, size) =>
        deps.logger.warn(
          { err: error, size },
          'confirmation batch failed; reading its rows one by one',
        ),
      ...(lane.forwardUnknown ? { forwardUnknown: lane.forwardUnknown } : {}),
      // Webhooks answered by a read of their record that another job asked for: their own jobs
      // find them finished.
      onExtra: (id, result) => {
        observeResult(result, id, deps);
        onResult(result);
      },
    };
  // A row read again gets a read of its own, begun after it was received.
  const again: BatchOptions = { read: true, triage: false, joinReads: false };
  const readAgain = (rows: readonly Pending<number, LaneResult>[], round: number): void => {
    if (round > MAX_READ_ROUNDS) {
      for (const row of rows) row.reject(new ReadRoundsExhaustedError(row.item));
      return;
    }
    void runRows(rows, again, { ...common, forward: (more) => readAgain(more, round + 1) });
  };
  const batcher = createInboxBatcher({
    ...common,
    read: true,
    triage: lane.triage,
    joinReads: true,
    maxBatch: deps.concurrency,
    maxInFlight: BATCHES_IN_FLIGHT,
    forward: (rows) => readAgain(rows, 2),
  });
  const worker = startLaneWorker(queue, batcher, deps.concurrency, deps, onResult);
  return {
    worker,
    async close() {
      await worker.close();
      await batcher.close();
    },
  };
}
