import { UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Sql } from '../db/client.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import type { GatewayClient } from '../gateway/types.js';
import type { PrefixFor } from '../queue/lanes.js';
import type { Logger } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import {
  APPLY_NOTIFICATION_JOB,
  notificationJobSchema,
  type NotificationJob,
  type NotificationQueueName,
} from '../queue/catalog.js';
import { isRedisOutage } from '../queue/redisOutage.js';
import { recordFailedAttempt } from './failedAttempt.js';
import type { InboxBatcher } from './inboxBatcher.js';
import type { LaneResult } from './workerOutcome.js';

export interface LaneWorkerDeps {
  readonly sql: Sql;
  readonly gateway: GatewayClient | null;
  /** Without gateway keys, keep webhooks out of the mirror (UNCONFIRMED_WEBHOOKS=hold). */
  readonly holdUnconfirmable: boolean;
  readonly policy: WatchPolicy;
  readonly connection: ConnectionOptions;
  /** Each lane's BullMQ prefix by its queue name. */
  readonly prefixFor: PrefixFor;
  readonly lockSeconds: number;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

export type LaneWorker = Worker<NotificationJob, void, typeof APPLY_NOTIFICATION_JOB>;

/**
 * A BullMQ worker on one lane's queue: each job hands its inbox row to the lane's batcher and
 * reports what became of it. A failure is recorded on the row (after the last attempt the row
 * is `failed`) and the job retries with backoff.
 */
export function startLaneWorker(
  queue: NotificationQueueName,
  batcher: InboxBatcher,
  concurrency: number,
  deps: LaneWorkerDeps,
  onResult: (result: LaneResult) => void = () => {},
): LaneWorker {
  const worker = new Worker<NotificationJob, void, typeof APPLY_NOTIFICATION_JOB>(
    queue,
    (job) => runJob(job, batcher, deps, onResult),
    {
      connection: deps.connection,
      prefix: deps.prefixFor(queue),
      concurrency,
      // A killed worker's jobs are found stalled after about this long and run again.
      lockDuration: deps.lockSeconds * 1000,
      stalledInterval: deps.lockSeconds * 1000,
    },
  );
  worker.on('error', logLaneWorkerError(deps.logger, queue));
  // A job's lock in Redis holds its worker's id: this line tells which process runs a job.
  deps.logger.info({ queue, workerId: worker.id }, 'lane worker started');
  return worker;
}

/** A lane worker's error event in the log: a Redis outage it retries through is a warning. */
export function logLaneWorkerError(logger: Logger, queue: string): (error: Error) => void {
  return (error) => {
    if (isRedisOutage(error)) {
      logger.warn({ err: error, queue }, 'lane worker lost Redis for a moment; it retries');
    } else {
      logger.error({ err: error, queue }, 'lane worker error');
    }
  };
}

async function runJob(
  job: Job<NotificationJob>,
  batcher: InboxBatcher,
  deps: LaneWorkerDeps,
  onResult: (result: LaneResult) => void,
): Promise<void> {
  const data = notificationJobSchema.safeParse(job.data);
  if (!data.success) throw new UnrecoverableError(`malformed job payload: ${data.error.message}`);
  const { inboxEventId } = data.data;
  let result: LaneResult;
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
    await recordFailedAttempt(deps.sql, inboxEventId, error, final).catch((recordError: unknown) =>
      deps.logger.error({ err: recordError, inboxEventId }, 'cannot record the failed attempt'),
    );
    throw error;
  }
  observeResult(result, inboxEventId, deps);
  onResult(result);
}

/** A row's result in the metrics and the log (a job's, or a row another job's read answered). */
export function observeResult(
  result: LaneResult,
  inboxEventId: number,
  deps: Pick<LaneWorkerDeps, 'metrics' | 'logger'>,
): void {
  switch (result.kind) {
    case 'done': {
      deps.metrics.workerOutcomes.inc({ resource: result.resource, outcome: result.outcome });
      deps.metrics.acceptToApplied.observe((Date.now() - result.receivedAt.getTime()) / 1000);
      logDone(result, inboxEventId, deps.logger);
      if (result.outsideFormat) observeOutsideFormat(result, inboxEventId, deps);
      if (result.unconfirmedReplay) deps.metrics.cycleReplaysUnconfirmed.inc();
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
    case 'forwarded':
      if (result.to === 'confirmation') {
        deps.metrics.forwardedToConfirmation.inc();
        deps.logger.debug(
          { inboxEventId },
          'needs a gateway read: handed to the confirmation lane',
        );
      } else {
        deps.logger.debug(
          { inboxEventId },
          'about an unknown id: handed to the lane of unknown ids',
        );
      }
      return;
    case 'skipped':
      deps.logger.debug({ inboxEventId, state: result.state }, 'inbox row already finished');
      return;
    case 'missing':
      deps.logger.warn({ inboxEventId }, 'job for an inbox row that does not exist');
      return;
  }
}

/** Records already logged for a value outside the notification format (once per record). */
const OUTSIDE_FORMAT_LOGGED = new Set<string>();
const OUTSIDE_FORMAT_LOGGED_MAX = 10_000;

function observeOutsideFormat(
  result: Extract<LaneResult, { kind: 'done' }>,
  inboxEventId: number,
  deps: Pick<LaneWorkerDeps, 'metrics' | 'logger'>,
): void {
  const outside = result.outsideFormat;
  if (!outside) return;
  deps.metrics.notificationsOutsideFormat.inc({
    resource: result.resource,
    field: outside.field,
    value: outside.value,
  });
  const key = `${result.resource}:${result.recordId}`;
  if (OUTSIDE_FORMAT_LOGGED.has(key)) return;
  if (OUTSIDE_FORMAT_LOGGED.size >= OUTSIDE_FORMAT_LOGGED_MAX) OUTSIDE_FORMAT_LOGGED.clear();
  OUTSIDE_FORMAT_LOGGED.add(key);
  deps.logger.warn(
    { inboxEventId, resource: result.resource, id: result.recordId, ...outside },
    `${outside.field} ${outside.value} is outside the documented notification format (only the read form has it): applied`,
  );
}

/**
 * A done row's log line. Most rows are plainly applied, logged at debug: their fields are
 * gathered only when that level is on (copying them for every job, to be dropped, was a
 * per-job cost of the drain).
 */
function logDone(
  result: Extract<LaneResult, { kind: 'done' }>,
  inboxEventId: number,
  logger: Logger,
): void {
  const [level, message] = doneLine(result);
  if (!logger.isLevelEnabled(level)) return;
  const { kind: _kind, receivedAt: _receivedAt, ...fields } = result;
  logger[level]({ inboxEventId, ...fields }, message);
}

function doneLine(result: Extract<LaneResult, { kind: 'done' }>): ['warn' | 'debug', string] {
  if (result.outcome === 'forged') {
    return ['warn', 'forged notification: the gateway does not know this record as ours'];
  }
  if (result.outcome === 'invalid') return ['warn', 'impossible move quarantined'];
  if (result.needsReconcile) {
    return ['warn', 'ambiguous move applied unconfirmed; row marked for reconciliation'];
  }
  return ['debug', 'notification applied'];
}
