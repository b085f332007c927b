import { UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Db } from '../db/client.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import type { GatewayClient } from '../gateway/types.js';
import type { Logger } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import {
  APPLY_NOTIFICATION_JOB,
  NOTIFICATIONS_QUEUE,
  notificationJobSchema,
  type NotificationJob,
} from '../queue/catalog.js';
import type { Pending } from '../lib/microBatcher.js';
import { recordFailedAttempt } from './failedAttempt.js';
import { createInboxBatcher, runRows, type InboxBatcher } from './inboxBatcher.js';
import { processInboxBatch } from './processInboxBatch.js';
import type { ProcessResult } from './workerOutcome.js';

/** Batch transactions a worker process runs at once; rows gather for the next meanwhile. */
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

export interface NotificationWorkerDeps {
  readonly db: Db;
  readonly gateway: GatewayClient | null;
  readonly policy: WatchPolicy;
  readonly connection: ConnectionOptions;
  readonly prefix: string;
  readonly concurrency: number;
  readonly lockSeconds: number;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

export function createNotificationWorker(
  deps: NotificationWorkerDeps,
): Worker<NotificationJob, void, typeof APPLY_NOTIFICATION_JOB> {
  const run = (ids: readonly number[], options: { read: boolean }) =>
    processInboxBatch(deps, ids, options);
  const onBatchFailure = (error: unknown, size: number) =>
    deps.logger.warn({ err: error, size }, 'batch failed; applying its rows one by one');
  // Rows that need a gateway read go through it together, outside the batch slots.
  const readFirst = (rows: readonly Pending<number, ProcessResult>[], round = 1): void => {
    void runRows(
      rows,
      { read: true },
      {
        run,
        onBatchFailure,
        forward: (again) => {
          if (round < MAX_READ_ROUNDS) readFirst(again, round + 1);
          else for (const row of again) row.reject(new ReadRoundsExhaustedError(row.item));
        },
      },
    );
  };
  // The jobs running at once share transactions: up to `concurrency` rows per batch.
  const batcher = createInboxBatcher({
    maxBatch: deps.concurrency,
    maxInFlight: BATCHES_IN_FLIGHT,
    run,
    forward: readFirst,
    onBatchFailure,
  });
  const worker = new Worker<NotificationJob, void, typeof APPLY_NOTIFICATION_JOB>(
    NOTIFICATIONS_QUEUE,
    (job) => runJob(job, batcher, deps),
    {
      connection: deps.connection,
      prefix: deps.prefix,
      concurrency: deps.concurrency,
      // A killed worker's jobs are found stalled after about this long and run again.
      lockDuration: deps.lockSeconds * 1000,
      stalledInterval: deps.lockSeconds * 1000,
    },
  );
  worker.on('error', (error) => deps.logger.error({ err: error }, 'notification worker error'));
  return worker;
}

async function runJob(
  job: Job<NotificationJob>,
  batcher: InboxBatcher,
  deps: NotificationWorkerDeps,
): Promise<void> {
  const data = notificationJobSchema.safeParse(job.data);
  if (!data.success) throw new UnrecoverableError(`malformed job payload: ${data.error.message}`);
  const { inboxEventId } = data.data;
  let result: ProcessResult;
  try {
    result = await batcher.process(inboxEventId);
  } catch (error) {
    const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    deps.metrics.workerFailures.inc({ final: String(final) });
    deps.logger.warn(
      { err: error, inboxEventId, attempt: job.attemptsMade + 1, final },
      final ? 'notification failed for good' : 'notification failed; will retry',
    );
    // If even this write fails, the row stays pending and the sweeper brings it back.
    await recordFailedAttempt(deps.db, inboxEventId, error, final).catch((recordError: unknown) =>
      deps.logger.error({ err: recordError, inboxEventId }, 'cannot record the failed attempt'),
    );
    throw error;
  }
  observe(result, inboxEventId, deps);
}

function observe(result: ProcessResult, inboxEventId: number, deps: NotificationWorkerDeps): void {
  switch (result.kind) {
    case 'done': {
      deps.metrics.workerOutcomes.inc({ resource: result.resource, outcome: result.outcome });
      deps.metrics.acceptToApplied.observe((Date.now() - result.receivedAt.getTime()) / 1000);
      const { kind: _kind, receivedAt: _receivedAt, ...fields } = result;
      if (result.outcome === 'forged') {
        deps.logger.warn(
          { inboxEventId, ...fields },
          'forged notification: the gateway does not know this record as ours',
        );
      } else if (result.outcome === 'invalid') {
        deps.logger.warn({ inboxEventId, ...fields }, 'impossible move quarantined');
      } else if (result.needsReconcile) {
        deps.logger.warn(
          { inboxEventId, ...fields },
          'ambiguous move applied unconfirmed; row marked for reconciliation',
        );
      } else {
        deps.logger.debug({ inboxEventId, ...fields }, 'notification applied');
      }
      if (result.crossChannelDisagreement) {
        deps.metrics.crossChannelDisagreements.inc();
        deps.logger.warn(
          { inboxEventId, resource: result.resource },
          'postback and webhook disagree on the amount',
        );
      }
      return;
    }
    case 'quarantined':
      deps.metrics.workerOutcomes.inc({ resource: 'unknown', outcome: 'quarantined' });
      deps.logger.warn({ inboxEventId, reason: result.reason }, 'notification quarantined');
      return;
    case 'skipped':
      deps.logger.debug({ inboxEventId, state: result.state }, 'inbox row already finished');
      return;
    case 'missing':
      deps.logger.warn({ inboxEventId }, 'job for an inbox row that does not exist');
      return;
  }
}
