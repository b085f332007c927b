import { sql } from 'drizzle-orm';
import type { Tx } from '../db/client.js';
import { reconciliationDiscrepancies } from '../db/schema.js';
import type { Channel, SaleNotice } from '../notifications/notification.js';

/**
 * The two channels describe the same sale event; when they disagree on the amount, one of
 * them is wrong (or forged), and finance should know. Recorded with source 'cross_channel':
 * mirror_value holds the postback's claim, gateway_value the webhook's.
 */
export async function recordCrossChannelDisagreement(
  tx: Tx,
  channel: Channel,
  notice: SaleNotice,
  inboxEventId: number,
): Promise<boolean> {
  const other: Channel = channel === 'postback' ? 'webhook' : 'postback';
  const rows = await tx.execute<{ amount: string | null }>(sql`
    select payload->>'amount' as amount from inbox_events
     where channel = ${other} and resource_type = 'sale' and resource_id = ${notice.id}
       and notified_status = ${notice.status} and state = 'processed'
     order by id desc limit 1`);
  const otherAmount = rows[0]?.amount;
  if (
    otherAmount === undefined ||
    otherAmount === null ||
    otherAmount === String(notice.amountCents)
  ) {
    return false;
  }
  const mine = String(notice.amountCents);
  await tx.insert(reconciliationDiscrepancies).values({
    resourceType: 'sale',
    resourceId: notice.id,
    field: 'amount_cents',
    mirrorValue: channel === 'postback' ? mine : otherAmount,
    gatewayValue: channel === 'webhook' ? mine : otherAmount,
    action: 'recorded',
    source: 'cross_channel',
    inboxEventId,
  });
  return true;
}
