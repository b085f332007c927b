import type { DiscrepancyInsert } from '../db/rows.js';
import type { SaleDelivery } from '../inbox/sql/worker.js';
import { centsFromCentsString, MoneyError } from '../domain/money.js';
import type { Channel, SaleNotice } from '../notifications/notification.js';

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
  discrepancies: DiscrepancyInsert[];
} {
  const disagreeing = new Set<number>();
  const discrepancies: DiscrepancyInsert[] = [];
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
