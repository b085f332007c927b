import { idIn } from '../db/anyOf.js';
import type { Db, Tx } from '../db/client.js';
import { sales } from '../db/schema.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import type { PaymentMethod, SaleStatus } from '../domain/saleMachine.js';
import type { GatewayClient } from '../gateway/types.js';
import { MirrorBatch } from '../mirror/applyToMirror.js';
import type { MirrorInput } from '../mirror/inputs.js';
import { retryingInsertRaces } from '../mirror/mirrorRows.js';
import type { Watch } from '../mirror/planContext.js';
import { recordDiscrepancies } from '../mirror/mirrorWrites.js';
import {
  crossChannelDisagreements,
  payloadAmount,
  readSaleDeliveries,
  type CrossChannelCandidate,
  type SaleDelivery,
} from './crossChannelCheck.js';
import { finishInboxRows, type FinishedRow } from './finishInboxRows.js';
import {
  readRecords,
  type GatewayRead,
  type ReadRequest,
  type RecentReads,
} from './gatewayReads.js';
import { lockInboxRows, peekPendingRows, type InboxRow } from './inboxRows.js';
import { releaseDedupeKeys, type HeldKey } from './releaseDedupeKeys.js';
import { planRow, readNeeded, type RowPlan, type RowPlanOptions } from './rowInputs.js';
import {
  doneResult,
  finishedRow,
  rowOutcome,
  wantsCrossChannelCheck,
  type Applied,
  type ProcessResult,
} from './workerOutcome.js';

export interface ProcessDeps {
  readonly db: Db;
  /** Null without gateway keys: notifications are applied as received. */
  readonly gateway: GatewayClient | null;
  /** Without gateway keys, keep webhooks out of the mirror (UNCONFIRMED_WEBHOOKS=hold). */
  readonly holdUnconfirmable?: boolean;
  readonly policy: WatchPolicy;
  readonly now?: () => Date;
  /** Reads shared between this process's batches (the confirmation lane's). */
  readonly recentReads?: RecentReads;
}

export type BatchItemResult =
  | ProcessResult
  /** The row needs a gateway read first: left pending for the confirmation path. */
  | { readonly kind: 'forward' }
  /** Its gateway read failed: the row stays pending and its job retries. */
  | { readonly kind: 'failed'; readonly error: unknown };

export interface BatchOptions {
  /**
   * Read the gateway first for the rows that need it (the confirmation path). Without it,
   * such rows are answered 'forward' and nothing waits on the gateway.
   */
  readonly read: boolean;
}

/**
 * The worker's one path from inbox rows to the mirror. Rows that need the gateway are read
 * first, outside any transaction (one GET per record however many rows wait on it); then one
 * transaction locks the inbox rows (a re-run job finds its row finished), hands every row's
 * inputs to the mirror's one writer in id order, and records each row's outcome. Its
 * statements share round trips: the inbox rows, the sales they name and those sales'
 * deliveries are read in one (the withdrawals they name and the history of the records the
 * mirror holds, when there are any, in one more); the new mirror rows are written in a second;
 * and everything else, the inbox rows' outcomes included, in a third.
 */
export async function processInboxBatch(
  deps: ProcessDeps,
  inboxEventIds: readonly number[],
  options: BatchOptions,
): Promise<Map<number, BatchItemResult>> {
  const now = deps.now ?? (() => new Date());
  const ids = [...new Set(inboxEventIds)].sort((a, b) => a - b);
  const reads =
    options.read && deps.gateway
      ? await readFirst(deps.db, deps.gateway, ids, now, deps.recentReads ?? null)
      : new Map();
  return retryingInsertRaces(() =>
    deps.db.transaction((tx) =>
      applyRows(
        tx,
        ids,
        reads,
        {
          gatewayConfigured: deps.gateway !== null,
          holdUnconfirmable: deps.holdUnconfirmable ?? false,
        },
        { now: now(), policy: deps.policy },
      ),
    ),
  );
}

/** The reads the pending rows need, as they look before the lock. */
async function readFirst(
  db: Db,
  gateway: GatewayClient,
  ids: readonly number[],
  now: () => Date,
  recent: RecentReads | null,
): Promise<Map<string, GatewayRead>> {
  const rows = await peekPendingRows(db, ids);
  const saleIds = rows.flatMap((row) =>
    row.channel === 'postback' && row.parsed.ok ? [row.parsed.notice.id] : [],
  );
  const mirror =
    saleIds.length === 0
      ? new Map<number, { status: SaleStatus; paymentMethod: PaymentMethod }>()
      : new Map(
          (
            await db
              .select({ id: sales.id, status: sales.status, paymentMethod: sales.paymentMethod })
              .from(sales)
              .where(idIn(sales.id, saleIds))
          ).map((row) => [
            row.id,
            { status: row.status as SaleStatus, paymentMethod: row.paymentMethod as PaymentMethod },
          ]),
        );
  const requests = rows.flatMap((row): ReadRequest[] => {
    if (!row.parsed.ok) return [];
    const { notice } = row.parsed;
    const ref = readNeeded(row.channel, notice, true, mirror.get(notice.id) ?? null);
    return ref ? [{ ...ref, notBefore: row.receivedAt }] : [];
  });
  return requests.length === 0 ? new Map() : readRecords(gateway, requests, now, recent);
}

async function applyRows(
  tx: Tx,
  ids: readonly number[],
  reads: ReadonlyMap<string, GatewayRead>,
  lanes: Omit<RowPlanOptions, 'reads'>,
  watch: Watch,
): Promise<Map<number, BatchItemResult>> {
  const results = new Map<number, BatchItemResult>(ids.map((id) => [id, { kind: 'missing' }]));
  const finished: FinishedRow[] = [];
  const released: HeldKey[] = [];
  const toApply: { row: InboxRow; plan: Extract<RowPlan, { kind: 'apply' }> }[] = [];

  // One round trip: the statements are pipelined and run in this order, so the sales are
  // locked before their deliveries are read.
  const mirror = new MirrorBatch();
  const [lockedRows, , deliveries] = await Promise.all([
    lockInboxRows(tx, ids),
    mirror.lockSalesNamedByInbox(tx, ids),
    readSaleDeliveries(tx, { inboxEventIds: ids }),
  ]);
  mirror.salesNamedByInbox(salesNamed(lockedRows));

  for (const row of lockedRows) {
    if (row.state !== 'pending') {
      results.set(row.id, { kind: 'skipped', state: row.state });
      continue;
    }
    const plan = planRow(row, { ...lanes, reads });
    switch (plan.kind) {
      case 'quarantined':
        finished.push({
          id: row.id,
          state: 'quarantined',
          outcome: 'unparseable',
          reason: plan.reason,
        });
        results.set(row.id, {
          kind: 'quarantined',
          reason: plan.reason,
          receivedAt: row.receivedAt,
        });
        break;
      case 'forward':
        results.set(row.id, { kind: 'forward' });
        break;
      case 'failed':
        results.set(row.id, { kind: 'failed', error: plan.error });
        break;
      case 'forged': {
        const applied: Applied = {
          outcome: 'forged',
          confirmed: true,
          needsReconcile: false,
          detail: plan.detail,
        };
        finished.push(finishedRow(row.id, applied));
        released.push(heldKey(row));
        if (row.parsed.ok)
          results.set(row.id, doneResult(row.parsed.notice, applied, false, row.receivedAt));
        break;
      }
      case 'held': {
        const applied: Applied = {
          outcome: 'held',
          confirmed: false,
          needsReconcile: false,
          detail: 'no gateway keys to confirm it; UNCONFIRMED_WEBHOOKS=hold',
        };
        finished.push(finishedRow(row.id, applied));
        if (row.parsed.ok)
          results.set(row.id, doneResult(row.parsed.notice, applied, false, row.receivedAt));
        break;
      }
      case 'apply':
        toApply.push({ row, plan });
        break;
    }
  }

  const inputs: MirrorInput[] = toApply.flatMap(({ plan }) => plan.inputs);
  const mirrorResults = await mirror.plan(tx, inputs, watch);
  const candidates: CrossChannelCandidate[] = [];
  const done: {
    row: InboxRow;
    notice: (typeof toApply)[number]['plan']['notice'];
    applied: Applied;
  }[] = [];
  let next = 0;
  for (const { row, plan } of toApply) {
    const own = mirrorResults.slice(next, next + plan.inputs.length);
    next += plan.inputs.length;
    const applied = rowOutcome(own, {
      confirmed: plan.inputs.some((input) => input.kind === 'read'),
      contradicted: plan.contradicted,
    });
    if (applied === 'deferred') {
      results.set(row.id, { kind: 'forward' });
      continue;
    }
    finished.push(finishedRow(row.id, applied));
    if (plan.contradicted) released.push(heldKey(row));
    if (wantsCrossChannelCheck(plan.notice, applied)) {
      candidates.push({
        channel: row.channel,
        notice: plan.notice,
        inboxEventId: row.id,
        payloadAmount: payloadAmount(row.payload),
      });
    }
    done.push({ row, notice: plan.notice, applied });
  }

  const { disagreeing, discrepancies } = crossChannelDisagreements(
    await withDeliveriesOf(tx, candidates, deliveries),
    candidates,
  );
  await mirror.write(tx, () => [
    recordDiscrepancies(tx, discrepancies),
    finishInboxRows(tx, finished),
    releaseDedupeKeys(tx, released),
  ]);
  for (const { row, notice, applied } of done) {
    results.set(row.id, doneResult(notice, applied, disagreeing.has(row.id), row.receivedAt));
  }
  return results;
}

/** The sales the inbox rows name, as the ingress read them. */
function salesNamed(rows: readonly InboxRow[]): number[] {
  return rows.flatMap(({ resourceType, resourceId }) =>
    resourceType === 'sale' && resourceId !== null ? [resourceId] : [],
  );
}

/**
 * The deliveries read with the locks, and those of any candidate's sale its inbox row did not
 * name (a row stored before the ingress read it, say): read now, under the same locks.
 */
async function withDeliveriesOf(
  tx: Tx,
  candidates: readonly CrossChannelCandidate[],
  deliveries: readonly SaleDelivery[],
): Promise<readonly SaleDelivery[]> {
  const read = new Set(deliveries.map((delivery) => delivery.saleId));
  const missing = [
    ...new Set(candidates.map(({ notice }) => notice.id).filter((id) => !read.has(id))),
  ];
  if (missing.length === 0) return deliveries;
  return [...deliveries, ...(await readSaleDeliveries(tx, { saleIds: missing }))];
}

function heldKey(row: InboxRow): HeldKey {
  return { inboxEventId: row.id, channel: row.channel, eventKey: row.eventKey };
}
