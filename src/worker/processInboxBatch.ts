import { transaction, type Sql, type Tx } from '../db/client.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import type { GatewayClient } from '../gateway/types.js';
import {
  finishInboxRows,
  recordsNamedBy,
  releaseDedupeKeys,
  saleDeliveries,
  type SaleDelivery,
} from '../inbox/sql/worker.js';
import { applyToMirror } from '../mirror/applyToMirror.js';
import { retryingInsertRaces } from '../mirror/mirrorRows.js';
import type { Watch } from '../mirror/planContext.js';
import { insertDiscrepancies } from '../mirror/sql/discrepancies.js';
import { saleStates } from '../mirror/sql/records.js';
import { BatchRows, type BatchItemResult } from './batchRows.js';
import { crossChannelDisagreements, type CrossChannelCandidate } from './crossChannelCheck.js';
import {
  readRecords,
  type GatewayRead,
  type ReadRequest,
  type RecentReads,
} from './gatewayReads.js';
import { lockInboxRows, peekPendingRows, type InboxRow } from './inboxRows.js';
import { readNeeded, type RowPlanOptions } from './rowInputs.js';

export type { BatchItemResult } from './batchRows.js';

export interface ProcessDeps {
  readonly sql: Sql;
  /** Null without gateway keys: notifications are applied as received. */
  readonly gateway: GatewayClient | null;
  /** Without gateway keys, keep webhooks out of the mirror (UNCONFIRMED_WEBHOOKS=hold). */
  readonly holdUnconfirmable?: boolean;
  readonly policy: WatchPolicy;
  readonly now?: () => Date;
  /** Reads shared between this process's batches (the confirmation lane's). */
  readonly recentReads?: RecentReads;
}

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
 * mirror holds, when there are any, in one more); and the mirror's writes go out with the inbox
 * rows' outcomes in a last one.
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
      ? await readFirst(deps.sql, deps.gateway, ids, now, deps.recentReads ?? null)
      : new Map<string, GatewayRead>();
  const lanes = {
    reads,
    gatewayConfigured: deps.gateway !== null,
    holdUnconfirmable: deps.holdUnconfirmable ?? false,
  };
  return retryingInsertRaces(() =>
    transaction(deps.sql, (tx) => applyRows(tx, ids, lanes, { now: now(), policy: deps.policy })),
  );
}

/** The reads the pending rows need, as they look before the lock. */
async function readFirst(
  sql: Sql,
  gateway: GatewayClient,
  ids: readonly number[],
  now: () => Date,
  recent: RecentReads | null,
): Promise<Map<string, GatewayRead>> {
  const rows = await peekPendingRows(sql, ids);
  const mirror = await saleStates(
    sql,
    rows.flatMap((row) =>
      row.channel === 'postback' && row.parsed.ok ? [row.parsed.notice.id] : [],
    ),
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
  lanes: RowPlanOptions,
  watch: Watch,
): Promise<Map<number, BatchItemResult>> {
  const batch = new BatchRows(ids);
  // One round trip: the statements are sent in this order and run in it, so the sales are
  // locked before their deliveries are read.
  const locked = lockInboxRows(tx, ids);
  const mirrorDone = applyToMirror(
    tx,
    locked.then((rows) => batch.inputsOf(rows, lanes)),
    watch,
    {
      prelock: { sales: recordsNamedBy(tx, 'sale', ids), named: locked.then(salesNamed) },
      alongside: async (results) => {
        const candidates = batch.applied(results);
        const { disagreeing, discrepancies } = crossChannelDisagreements(
          await withDeliveriesOf(tx, candidates, await deliveries),
          candidates,
        );
        batch.settle(disagreeing);
        await Promise.all([
          insertDiscrepancies(tx, discrepancies),
          finishInboxRows(tx, batch.finished),
          releaseDedupeKeys(tx, batch.released),
        ]);
      },
    },
  );
  const deliveries = saleDeliveries(tx, { inboxEventIds: ids });
  await mirrorDone;
  return batch.results;
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
  return [...deliveries, ...(await saleDeliveries(tx, { saleIds: missing }))];
}
