import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { z } from 'zod';
import { addInChunks } from './addInChunks.js';

/**
 * The queues paymirror uses, their job payloads and retry policies. Payloads carry ids, not
 * data: the inbox row is the data, so a lost queue loses nothing the sweeper cannot rebuild.
 */
export const NOTIFICATIONS_QUEUE = 'notifications';
/**
 * The rows that need a gateway read first (unsigned webhooks, ambiguous signed moves): their
 * own queue and workers, so the signed lane never waits on the gateway. See src/queue/lanes.ts.
 */
export const CONFIRMATIONS_QUEUE = 'confirmations';
/**
 * Webhooks about ids the mirror does not know (a leaked webhook URL sends thousands): their own
 * queue, read under a bounded part of the gateway budget, so that they never delay the
 * confirmation of a webhook about a record the mirror knows.
 */
export const UNKNOWN_IDS_QUEUE = 'confirmations-unknown';
export type NotificationQueueName =
  typeof NOTIFICATIONS_QUEUE | typeof CONFIRMATIONS_QUEUE | typeof UNKNOWN_IDS_QUEUE;
export const APPLY_NOTIFICATION_JOB = 'apply-notification';

/** The reconciler's scheduled passes (no payload: a pass picks its own rows). */
export const RECONCILE_QUEUE = 'reconcile';
export const RECONCILE_JOB = 'reconcile-pass';

/**
 * The transition feed for the seller's other systems: one job per status_history row, job id
 * `transition-{history id}`, added in history order. See docs/operating.md, "Transition feed".
 */
export const TRANSITIONS_QUEUE = 'paymirror-transitions';
export const TRANSITION_JOB = 'transition';

export const transitionJobSchema = z.object({
  historyId: z.number().int().positive(),
  resourceType: z.enum(['sale', 'withdrawal']),
  resourceId: z.number().int().positive(),
  fromStatus: z.string().nullable(),
  toStatus: z.string(),
  source: z.enum(['postback', 'webhook', 'reconcile', 'api']),
  recordedAt: z.string(),
});
export type TransitionJob = z.infer<typeof transitionJobSchema>;

export function transitionJobId(historyId: number): string {
  return `transition-${historyId}`;
}

export const notificationJobSchema = z.object({
  inboxEventId: z.number().int().positive(),
});
export type NotificationJob = z.infer<typeof notificationJobSchema>;

/** Derived from the inbox row, so enqueueing the same row twice is one job. */
export function notificationJobId(inboxEventId: number): string {
  return `inbox-${inboxEventId}`;
}

export interface RetryPolicy {
  readonly attempts: number;
  readonly backoffMs: number;
}

export function notificationJobOptions(inboxEventId: number, retry: RetryPolicy): JobsOptions {
  return {
    jobId: notificationJobId(inboxEventId),
    attempts: retry.attempts,
    backoff: { type: 'exponential', delay: retry.backoffMs },
    // The inbox row keeps the outcome and the error; Redis need not keep finished jobs,
    // and a removed job id can be enqueued again by the sweeper.
    removeOnComplete: true,
    removeOnFail: true,
  };
}

export type NotificationQueue = Queue<NotificationJob, void, typeof APPLY_NOTIFICATION_JOB>;

export function createNotificationQueue(
  connection: ConnectionOptions,
  prefix: string,
  name: NotificationQueueName = NOTIFICATIONS_QUEUE,
): NotificationQueue {
  return new Queue<NotificationJob, void, typeof APPLY_NOTIFICATION_JOB>(name, {
    connection,
    prefix,
  });
}

export async function enqueueNotifications(
  queue: NotificationQueue,
  inboxEventIds: readonly number[],
  retry: RetryPolicy,
): Promise<void> {
  if (inboxEventIds.length === 0) return;
  const [only] = inboxEventIds;
  if (inboxEventIds.length === 1 && only !== undefined) {
    // The ingress enqueues one row per request: a plain add skips addBulk's pipeline.
    await queue.add(
      APPLY_NOTIFICATION_JOB,
      { inboxEventId: only },
      notificationJobOptions(only, retry),
    );
    return;
  }
  await addInChunks(
    queue,
    inboxEventIds.map((inboxEventId) => ({
      name: APPLY_NOTIFICATION_JOB,
      data: { inboxEventId },
      opts: notificationJobOptions(inboxEventId, retry),
    })),
  );
}
