import type { ConnectionOptions } from 'bullmq';
import type { Channel } from '../notifications/notification.js';
import {
  CONFIRMATIONS_QUEUE,
  createNotificationQueue,
  enqueueNotifications,
  NOTIFICATIONS_QUEUE,
  type NotificationQueue,
  type RetryPolicy,
} from './catalog.js';

/**
 * Two lanes of inbox rows. The signed lane (queue `notifications`) applies what needs no
 * gateway read: signed postbacks, and every webhook when there are no gateway keys. The
 * confirmation lane (queue `confirmations`) reads the gateway first: unsigned webhooks, and
 * signed moves on a cycle the signed lane hands over. Each lane has its own workers, so a
 * flood of webhooks (forged ones included) waiting on the gateway budget never delays a
 * signed postback. A row in the wrong lane is still right: the signed lane forwards what
 * needs a read, and the confirmation lane applies what does not.
 */
export interface LaneQueues {
  readonly signed: NotificationQueue;
  readonly confirmation: NotificationQueue;
}

/** Each queue's BullMQ prefix by its name (a hash tag per queue in a Redis Cluster). */
export type PrefixFor = (queue: string) => string;

export function createLaneQueues(connection: ConnectionOptions, prefixFor: PrefixFor): LaneQueues {
  return {
    signed: createNotificationQueue(
      connection,
      prefixFor(NOTIFICATIONS_QUEUE),
      NOTIFICATIONS_QUEUE,
    ),
    confirmation: createNotificationQueue(
      connection,
      prefixFor(CONFIRMATIONS_QUEUE),
      CONFIRMATIONS_QUEUE,
    ),
  };
}

export async function closeLaneQueues(lanes: LaneQueues): Promise<void> {
  await Promise.all([lanes.signed.close(), lanes.confirmation.close()]);
}

/** Whether a lane has workers: the confirmation lane reads the gateway, so only with its keys. */
export function laneRuns(lane: keyof LaneQueues, gatewayConfigured: boolean): boolean {
  return lane === 'signed' || gatewayConfigured;
}

/** Where a stored delivery starts: an unsigned webhook needs the gateway when there is one. */
export function laneFor(channel: Channel, gatewayConfigured: boolean): keyof LaneQueues {
  return channel === 'webhook' && gatewayConfigured ? 'confirmation' : 'signed';
}

export interface LaneRow {
  readonly id: number;
  readonly channel: Channel;
}

/** Enqueues each row in its lane (one addBulk per lane). */
export async function enqueueInLanes(
  lanes: LaneQueues,
  rows: readonly LaneRow[],
  gatewayConfigured: boolean,
  retry: RetryPolicy,
): Promise<void> {
  const signed: number[] = [];
  const confirmation: number[] = [];
  for (const row of rows) {
    (laneFor(row.channel, gatewayConfigured) === 'signed' ? signed : confirmation).push(row.id);
  }
  await Promise.all([
    enqueueNotifications(lanes.signed, signed, retry),
    enqueueNotifications(lanes.confirmation, confirmation, retry),
  ]);
}

/** Every lane's queue by its name, for metrics and the admin UI. */
export function laneQueueList(lanes: LaneQueues): readonly NotificationQueue[] {
  return [lanes.signed, lanes.confirmation];
}
