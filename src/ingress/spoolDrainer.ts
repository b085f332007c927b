import { buildDelivery, type Delivery } from '../inbox/delivery.js';
import type { Spool } from '../inbox/spool.js';
import type { StoreResult } from '../inbox/storeDelivery.js';
import type { Logger } from '../log/logger.js';
import type { LaneRow } from '../queue/lanes.js';
import { parseJsonObject } from './rawBody.js';
import { sellerOf } from './sellerCheck.js';

/**
 * Moves spooled deliveries into the inbox in the order they came, enqueueing the accepted
 * ones. Returns how many it moved; throws (leaving the rest spooled) while Postgres is down.
 */
export async function drainSpool(
  spool: Spool,
  store: (delivery: Delivery) => Promise<StoreResult>,
  enqueue: (row: LaneRow) => Promise<void>,
  logger: Logger,
  sellerUserId: number | null,
): Promise<number> {
  const moved = await spool.drain(async (spooled) => {
    const payload = parseJsonObject(spooled.rawBody);
    if (payload === null) return; // only authenticated JSON objects are ever spooled
    // Checked again: a line that is not ours (written by hand, or by an older version that did
    // not check userId) must not reach the mirror.
    const seller = sellerOf(payload, sellerUserId);
    if (seller === 'foreign' || (seller === 'invalid' && spooled.channel === 'postback')) {
      logger.warn({ channel: spooled.channel, seller }, 'spooled delivery not ours: dropped');
      return;
    }
    const stored = await store(
      buildDelivery({
        channel: spooled.channel,
        rawBody: spooled.rawBody,
        payload,
        headers: spooled.headers,
        sourceAddress: spooled.sourceAddress,
      }),
    );
    if (stored.kind === 'accepted') {
      const row = { id: stored.id, channel: spooled.channel, recordKnown: stored.recordKnown };
      await enqueue(row).catch((error: unknown) =>
        logger.warn({ err: error, inboxEventId: stored.id }, 'enqueue failed; the sweeper will'),
      );
    }
  });
  if (moved > 0) logger.info({ moved }, 'spooled deliveries moved into the inbox');
  return moved;
}
