import { sql } from 'drizzle-orm';
import type { Tx } from '../db/client.js';
import type { reconciliationDiscrepancies } from '../db/schema.js';
import { recordDiscrepancies } from '../mirror/mirrorWrites.js';
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
 * sale and status on the other channel, counting the candidates before it (they are
 * processed in the same transaction). Returns the inbox ids of the ones that disagree.
 */
export async function recordCrossChannelDisagreements(
  tx: Tx,
  candidates: readonly CrossChannelCandidate[],
): Promise<Set<number>> {
  const disagreeing = new Set<number>();
  if (candidates.length === 0) return disagreeing;
  const saleIds = [...new Set(candidates.map(({ notice }) => notice.id))];
  // The candidates' own rows are left out: whether they are marked processed yet in this
  // transaction must not matter (the loop below counts them, in order).
  const own = new Set(candidates.map(({ inboxEventId }) => inboxEventId));
  // Only the resource index is offered to the planner: a sale has a handful of deliveries, and
  // filtering on state in SQL let stale statistics (taken while a backlog was pending) pick a
  // scan of every processed row instead, 7 ms a batch against 0.05 ms.
  const rows = await tx.execute<{
    id: string;
    resource_id: string;
    notified_status: string;
    channel: Channel;
    state: string;
    amount: string | null;
  }>(sql`
    select id, resource_id, notified_status, channel, state, payload->>'amount' as amount
      from inbox_events
     where resource_type = 'sale' and resource_id = any(${sql.param(saleIds)}::bigint[])`);
  const latest = new Map<string, Seen>();
  for (const row of rows) {
    const id = Number(row.id);
    if (row.state !== 'processed' || own.has(id)) continue;
    const rowKey = key(Number(row.resource_id), row.notified_status, row.channel);
    if ((latest.get(rowKey)?.id ?? 0) < id) latest.set(rowKey, { id, amount: inCents(row.amount) });
  }

  const discrepancies: (typeof reconciliationDiscrepancies.$inferInsert)[] = [];
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
  await recordDiscrepancies(tx, discrepancies);
  return disagreeing;
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
