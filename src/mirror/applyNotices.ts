import type { Tx } from '../db/client.js';
import { insertRows } from '../db/jsonRows.js';
import { saleItems, sales, statusHistory, withdrawals } from '../db/schema.js';
import type { Notice, SaleNotice } from '../notifications/notification.js';
import type { ChangeContext } from './history.js';
import { MirrorRows } from './mirrorRows.js';
import type { Watch } from './noticePlan.js';
import type { MirrorOutcome } from './outcome.js';
import { planSaleNotice } from './planSaleNotice.js';
import { planWithdrawalNotice } from './planWithdrawalNotice.js';

export interface NoticeToApply {
  readonly notice: Notice;
  readonly context: ChangeContext;
  /** Left for a path that first asks the gateway (an unsigned webhook, with gateway keys). */
  readonly defer?: boolean;
}

export interface ApplyOptions {
  /** With gateway keys: a move on a cycle is deferred to be confirmed, not applied. */
  readonly deferConfirm: boolean;
}

/** Per notice, in order: what it did, or 'deferred' (nothing written for it). */
export type AppliedNotice = MirrorOutcome | 'deferred';

/**
 * Applies notifications to the mirror inside the caller's transaction, in the order given, as
 * if one after the other: every record they name is locked at once, each notice is decided
 * against the state the previous ones left, and the writes go out as a few multi-row
 * statements. Once a record has a deferred notice, its later ones are deferred too, so the
 * order of a record's notices holds.
 */
export async function applyNotices(
  tx: Tx,
  notices: readonly NoticeToApply[],
  watch: Watch,
  options: ApplyOptions,
): Promise<AppliedNotice[]> {
  const saleRows = new MirrorRows(sales);
  const withdrawalRows = new MirrorRows(withdrawals);
  await Promise.all([
    saleRows.lock(tx, idsOf(notices, 'sale')),
    withdrawalRows.lock(tx, idsOf(notices, 'withdrawal')),
  ]);

  const deferred = new Set<string>();
  const history: (typeof statusHistory.$inferInsert)[] = [];
  const items: (typeof saleItems.$inferInsert)[] = [];
  const results = notices.map(({ notice, context, defer }): AppliedNotice => {
    const record = `${notice.kind}:${notice.id}`;
    if (defer || deferred.has(record)) {
      deferred.add(record);
      return 'deferred';
    }
    const plan =
      notice.kind === 'sale'
        ? planSaleNotice(saleRows, notice, watch, options.deferConfirm)
        : planWithdrawalNotice(withdrawalRows, notice, watch);
    if (plan.outcome === 'deferred') {
      deferred.add(record);
      return 'deferred';
    }
    if (plan.moved) {
      history.push({
        resourceType: notice.kind,
        resourceId: notice.id,
        fromStatus: plan.moved.from,
        toStatus: plan.moved.to,
        source: context.source,
        inboxEventId: context.inboxEventId,
      });
    }
    if (plan.items && notice.kind === 'sale') items.push(...itemRows(notice));
    return plan.outcome;
  });

  // Statements issued together are pipelined on the transaction's connection: one write and
  // one wait for the lot. New sales go first: their items refer to them.
  await Promise.all([saleRows.writeInserts(tx), withdrawalRows.writeInserts(tx)]);
  await Promise.all([
    saleRows.writeUpdates(tx),
    withdrawalRows.writeUpdates(tx),
    insertRows(tx, saleItems, items, { skipConflicts: true }),
    insertRows(tx, statusHistory, history),
  ]);
  return results;
}

function idsOf(notices: readonly NoticeToApply[], kind: Notice['kind']): number[] {
  return notices.filter(({ notice }) => notice.kind === kind).map(({ notice }) => notice.id);
}

function itemRows(notice: SaleNotice): (typeof saleItems.$inferInsert)[] {
  return (notice.items ?? []).map((item) => ({
    saleId: notice.id,
    itemId: item.itemId,
    title: item.title,
    unitPriceCents: item.unitPriceCents,
    quantity: item.quantity,
    tangible: item.tangible,
  }));
}
