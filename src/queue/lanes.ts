import type { ConnectionOptions } from 'bullmq';
import type { Channel } from '../notifications/notification.js';
import {
  CONFIRMATIONS_QUEUE,
  createNotificationQueue,
  enqueueNotifications,
  NOTIFICATIONS_QUEUE,
  UNKNOWN_IDS_QUEUE,
  type NotificationQueue,
  type RetryPolicy,
} from './catalog.js';

/**
 * Three lanes of inbox rows. The signed lane (queue `notifications`) applies what needs no
 * gateway read: signed postbacks, and every webhook when there are no gateway keys. The
 * confirmation lane (queue `confirmations`) reads the gateway first: webhooks about records the
 * mirror knows, and signed moves on a cycle the signed lane hands over. The lane of unknown ids
 * (queue `confirmations-unknown`) reads the gateway for webhooks about records the mirror does
 * not know, under a bounded part of the gateway budget (GATEWAY_UNKNOWN_IDS_PERCENT). Each lane
 * has its own workers, so a flood of webhooks about made-up ids (a leaked URL) delays neither a
 * signed postback nor the confirmation of a webhook about a known sale or withdrawal. A row in
 * the wrong lane is still right: the signed lane forwards what needs a read, the confirmation
 * lane forwards webhooks about unknown ids, and the others apply what they are given.
 */
export interface LaneQueues {
  readonly signed: NotificationQueue;
  readonly confirmation: NotificationQueue;
  readonly unknownIds: NotificationQueue;
}

export type Lane = keyof LaneQueues;

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
    unknownIds: createNotificationQueue(
      connection,
      prefixFor(UNKNOWN_IDS_QUEUE),
      UNKNOWN_IDS_QUEUE,
    ),
  };
}

export async function closeLaneQueues(lanes: LaneQueues): Promise<void> {
  await Promise.all(laneQueueList(lanes).map((queue) => queue.close()));
}

/** Whether a lane has workers: the lanes that read the gateway only with its keys. */
export function laneRuns(lane: Lane, gatewayConfigured: boolean): boolean {
  return lane === 'signed' || gatewayConfigured;
}

export interface LaneRow {
  readonly id: number;
  readonly channel: Channel;
  /**
   * A webhook's: whether the mirror has the record it names, as its store statement found
   * (undefined when not asked: the confirmation lane finds out).
   */
  readonly recordKnown?: boolean | null;
}

/**
 * Where a stored delivery starts: an unsigned webhook needs the gateway when there is one, in
 * the lane of unknown ids when its store found the mirror without its record.
 */
export function laneFor(row: Omit<LaneRow, 'id'>, gatewayConfigured: boolean): Lane {
  if (row.channel !== 'webhook' || !gatewayConfigured) return 'signed';
  return row.recordKnown === false ? 'unknownIds' : 'confirmation';
}

/** Enqueues each row in its lane (one addBulk per lane). */
export async function enqueueInLanes(
  lanes: LaneQueues,
  rows: readonly LaneRow[],
  gatewayConfigured: boolean,
  retry: RetryPolicy,
): Promise<void> {
  const byLane: Record<Lane, number[]> = { signed: [], confirmation: [], unknownIds: [] };
  for (const row of rows) byLane[laneFor(row, gatewayConfigured)].push(row.id);
  await Promise.all(
    (Object.keys(byLane) as Lane[]).map((lane) =>
      enqueueNotifications(lanes[lane], byLane[lane], retry),
    ),
  );
}

/** Every lane's queue by its name, for metrics and the admin UI. */
export function laneQueueList(lanes: LaneQueues): readonly NotificationQueue[] {
  return [lanes.signed, lanes.confirmation, lanes.unknownIds];
}
