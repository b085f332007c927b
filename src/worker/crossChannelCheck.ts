import { sql } from 'drizzle-orm';
import { bigintArrayParam } from '../db/anyOf.js';
import type { Tx } from '../db/client.js';
import type { reconciliationDiscrepancies } from '../db/schema.js';
import { namedByInbox } from '../mirror/mirrorRows.js';
import { centsFromCentsString, MoneyError } from '../domain/money.js';
import type { Channel, SaleNotice } from '../notifications/notification.js';
import { executeQuery } from '../db/driverQuery.js';

export interface CrossChannelCandidate {
  readonly channel: Channel;
  readonly notice: SaleNotice;
  readonly inboxEventId: number;
  /** The delivery's own `amount` as stored (payload->>'amount'), which later ones compare to. */
  readonly payloadAmount: string | null;
}

interface Seen {
  readonly id: number;
  readonly amount: string | null;
}

/** A delivery of a sale as stored (the cross-channel check counts the processed ones). */
export interface SaleDelivery {
  readonly id: number;
  readonly saleId: number;
  readonly status: string;
  readonly channel: Channel;
  readonly state: string;
  readonly amount: string | null;
}

/**
 * Every delivery of these sales, or of the sales these inbox rows name (their resource_id, set
 * by the ingress: a statement that needs no earlier answer). Only the resource index is offered
 * to the planner: a sale has a handful of deliveries, and filtering on state in SQL let stale
 * statistics (taken while a backlog was pending) pick a scan of every processed row instead,
 * 7 ms a batch against 0.05 ms.
 */
export async function readSaleDeliveries(
  tx: Tx,
  of: { readonly inboxEventIds: readonly number[] } | { readonly saleIds: readonly number[] },
): Promise<SaleDelivery[]> {
  const saleIds =
    'saleIds' in of
      ? bigintArrayParam(of.saleIds)
      : namedByInbox('sale', bigintArrayParam(of.inboxEventIds));
  const rows = await executeQuery<{
    id: string;
    resource_id: string;
    notified_status: string;
    channel: Channel;
    state: string;
    amount: string | null;
  }>(
    tx,
    sql`
    select id, resource_id, notified_status, channel, state,
           -- Only a processed delivery's amount is compared: the batch's own rows (pending) are
           -- returned without opening their payloads.
           case when state = 'processed' then payload->>'amount' end as amount
      from inbox_events
     where resource_type = 'sale' and resource_id = any(${saleIds})`,
  );
  return rows.map((row) => ({
    id: Number(row.id),
    saleId: Number(row.resource_id),
    status: row.notified_status,
    channel: row.channel,
    state: row.state,
    amount: row.amount,
  }));
}

/**
 * The two channels describe the same sale event; when they disagree on the amount, one of
 * them is wrong (or forged), and finance should know. Recorded with source 'cross_channel':
 * mirror_value holds the postback's claim, gateway_value the webhook's.
 *
 * Candidates are checked in order, each against the latest processed delivery of the same
 * sale and status on the other channel (`deliveries`, read under the sales' locks), counting
 * the candidates before it (they are processed in the same transaction). Returns the inbox ids
 * of the ones that disagree, and the discrepancy rows to write.
 */
export function crossChannelDisagreements(
  deliveries: readonly SaleDelivery[],
  candidates: readonly CrossChannelCandidate[],
): {
  disagreeing: Set<number>;
  discrepancies: (typeof reconciliationDiscrepancies.$inferInsert)[];
} {
  const disagreeing = new Set<number>();
  const discrepancies: (typeof reconciliationDiscrepancies.$inferInsert)[] = [];
  // The candidates' own rows are left out: whether they are marked processed yet in this
  // transaction must not matter (the loop below counts them, in order).
  const own = new Set(candidates.map(({ inboxEventId }) => inboxEventId));
  const latest = new Map<string, Seen>();
  for (const delivery of deliveries) {
    if (delivery.state !== 'processed' || own.has(delivery.id)) continue;
    const deliveryKey = key(delivery.saleId, delivery.status, delivery.channel);
    if ((latest.get(deliveryKey)?.id ?? 0) < delivery.id) {
      latest.set(deliveryKey, { id: delivery.id, amount: inCents(delivery.amount) });
    }
  }

  for (const { channel, notice, inboxEventId, payloadAmount } of candidates) {
    const other: Channel = channel === 'postback' ? 'webhook' : 'postback';
    const mine = String(notice.amountCents);
    const otherAmount = latest.get(key(notice.id, notice.status, other))?.amount;
    if (otherAmount !== undefined && otherAmount !== null && otherAmount !== mine) {
      disagreeing.add(inboxEventId);
      discrepancies.push({
        resourceType: 'sale',
        resourceId: notice.id,
        field: 'amount_cents',
        mirrorValue: channel === 'postback' ? mine : otherAmount,
        gatewayValue: channel === 'webhook' ? mine : otherAmount,
        action: 'recorded',
        source: 'cross_channel',
        inboxEventId,
      });
    }
    const mineKey = key(notice.id, notice.status, channel);
    if ((latest.get(mineKey)?.id ?? 0) < inboxEventId) {
      latest.set(mineKey, { id: inboxEventId, amount: inCents(payloadAmount) });
    }
  }
  return { disagreeing, discrepancies };
}

function key(saleId: number, status: string, channel: Channel): string {
  return `${saleId}|${status}|${channel}`;
}

/** Centavos as digits with no leading zeros ("015000" and "15000" are one amount). */
function inCents(amount: string | null): string | null {
  if (amount === null) return null;
  try {
    return String(centsFromCentsString(amount));
  } catch (error) {
    if (error instanceof MoneyError) return amount;
    throw error;
  }
}

/** A delivery's `amount` as Postgres's `payload->>'amount'` reads it. */
export function payloadAmount(payload: Record<string, unknown>): string | null {
  const amount = payload.amount;
  if (amount === undefined || amount === null) return null;
  return typeof amount === 'string' ? amount : JSON.stringify(amount);
}
