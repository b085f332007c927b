import { transaction, type Sql, type Tx } from '../db/client.js';
import { databaseNow } from '../db/clock.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import type { GatewayClient } from '../gateway/types.js';
import {
  finishInboxRows,
  pendingWebhooksOf,
  recordsNamedBy,
  releaseDedupeKeys,
  saleDeliveries,
  type PendingWebhook,
  type SaleDelivery,
} from '../inbox/sql/worker.js';
import { applyToMirror } from '../mirror/applyToMirror.js';
import { retryingInsertRaces } from '../mirror/mirrorRows.js';
import type { Watch } from '../mirror/planContext.js';
import { insertDiscrepancies } from '../mirror/sql/discrepancies.js';
import { recordKey } from '../mirror/inputs.js';
import { knownRecords, saleStates } from '../mirror/sql/records.js';
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
  /** Reads shared between this process's batches (a confirmation lane's). */
  readonly recentReads?: RecentReads;
}

export interface BatchOptions {
  /**
   * Read the gateway first for the rows that need it (the confirmation path). Without it,
   * such rows are answered 'forward' and nothing waits on the gateway.
   */
  readonly read: boolean;
  /**
   * The confirmation lane of known records: a webhook about a record the mirror does not know
   * is not read here, but answered 'unknownId' for the lane of unknown ids.
   */
  readonly triage?: boolean;
  /**
   * A webhook may wait for a read of its record already in flight (or just answered), even one
   * begun before it was received: that read may confirm it, else it is read again (a row's
   * first round; a row read again gets a read of its own).
   */
  readonly joinReads?: boolean;
}

/** Pending webhooks of the records a batch read that it answers beside its own rows, at most. */
const MAX_SIBLINGS = 256;

/**
 * The worker's one path from inbox rows to the mirror. Rows that need the gateway are read
 * first, outside any transaction: one GET per record however many rows wait on it, and that
 * read answers every other pending webhook of the record too, wherever its job waits (its job
 * then finds it finished). Then one transaction locks the inbox rows (a re-run job finds its
 * row finished), hands every row's inputs to the mirror's one writer in id order, and records
 * each row's outcome. Its statements share round trips: the inbox rows, the sales they name
 * and those sales' deliveries are read in one (the withdrawals they name and the history of the
 * records the mirror holds, when there are any, in one more); and the mirror's writes go out
 * with the inbox rows' outcomes in a last one. The result has an entry for each row given, and
 * for each other webhook the reads answered.
 */
export async function processInboxBatch(
  deps: ProcessDeps,
  inboxEventIds: readonly number[],
  options: BatchOptions,
): Promise<Map<number, BatchItemResult>> {
  const now = deps.now ?? (() => new Date());
  const ids = [...new Set(inboxEventIds)];
  const first =
    options.read && deps.gateway
      ? await readFirst(deps.sql, deps.gateway, ids, options, now, deps.recentReads ?? null)
      : NOTHING_READ;
  const results = new Map<number, BatchItemResult>();
  for (const id of first.unknownIds) results.set(id, { kind: 'unknownId' });
  const locked = [...ids.filter((id) => !first.unknownIds.has(id)), ...first.siblings].sort(
    (a, b) => a - b,
  );
  if (locked.length === 0) return results;
  const lanes: RowPlanOptions = {
    reads: first.reads,
    confirmOnly: first.confirmOnly,
    gatewayConfigured: deps.gateway !== null,
    holdUnconfirmable: deps.holdUnconfirmable ?? false,
  };
  const applied = await retryingInsertRaces(() =>
    transaction(deps.sql, (tx) =>
      applyRows(tx, locked, lanes, { now: now(), policy: deps.policy }),
    ),
  );
  for (const [id, result] of applied) results.set(id, result);
  return results;
}

/** What a batch read before its transaction. */
interface FirstReads {
  readonly reads: ReadonlyMap<string, GatewayRead>;
  /** Rows the reads may only confirm (RowPlanOptions.confirmOnly). */
  readonly confirmOnly: ReadonlySet<number>;
  /** Other pending webhooks of the records read, answered by the same reads. */
  readonly siblings: readonly number[];
  /** Webhooks about records the mirror does not know, left to the lane of unknown ids. */
  readonly unknownIds: ReadonlySet<number>;
}

const NOTHING_READ: FirstReads = {
  reads: new Map(),
  confirmOnly: new Set(),
  siblings: [],
  unknownIds: new Set(),
};

/** The reads the pending rows need, as they look before the lock. */
async function readFirst(
  sql: Sql,
  gateway: GatewayClient,
  ids: readonly number[],
  options: BatchOptions,
  now: () => Date,
  recent: RecentReads | null,
): Promise<FirstReads> {
  const rows = await peekPendingRows(sql, ids);
  const unknownIds = options.triage ? await aboutUnknownRecords(sql, rows) : new Set<number>();
  const reading = rows.filter((row) => !unknownIds.has(row.id));
  const mirror = await saleStates(
    sql,
    reading.flatMap((row) =>
      row.channel === 'postback' && row.parsed.ok ? [row.parsed.notice.id] : [],
    ),
  );
  const requests = new Map<number, ReadRequest>();
  for (const row of reading) {
    if (!row.parsed.ok) continue;
    const { notice } = row.parsed;
    const ref = readNeeded(row.channel, notice, true, mirror.get(notice.id) ?? null);
    const acceptEarlier = (options.joinReads ?? false) && row.channel === 'webhook';
    if (ref) requests.set(row.id, { ...ref, notBefore: row.receivedAt, acceptEarlier });
  }
  if (requests.size === 0) return { ...NOTHING_READ, unknownIds };
  // Found before the reads begin: every one was received before a read this batch begins (one
  // it joins may have begun before some of them: that one may only confirm them).
  const pending = await otherPendingWebhooks(sql, [...requests.values()], ids);
  // The database's time, before any GET: a read is judged against receipts Postgres stamped.
  const readAt = await databaseNow(sql);
  const { reads, joined, reused } = await readRecords(
    gateway,
    [...requests.values()],
    { readAt, now },
    recent,
  );
  const confirmOnly = new Set<number>();
  for (const [id, ref] of requests) {
    if (joined.has(recordKey(ref.resource, ref.id))) confirmOnly.add(id);
  }
  const siblings: number[] = [];
  for (const webhook of pending) {
    const key = recordKey(webhook.resourceType, webhook.resourceId);
    if (reads.get(key)?.kind === 'failed') continue;
    siblings.push(webhook.id);
    if (reused.has(key)) confirmOnly.add(webhook.id);
  }
  return { reads, confirmOnly, siblings, unknownIds };
}

/** The pending webhooks of the records these requests read, other than the batch's own rows. */
function otherPendingWebhooks(
  sql: Sql,
  requests: readonly ReadRequest[],
  batch: readonly number[],
): Promise<PendingWebhook[]> {
  const idsOf = (resource: 'sale' | 'withdrawal') => [
    ...new Set(requests.flatMap((r) => (r.resource === resource ? [r.id] : []))),
  ];
  return pendingWebhooksOf(
    sql,
    { sales: idsOf('sale'), withdrawals: idsOf('withdrawal') },
    batch,
    MAX_SIBLINGS,
  );
}

/** The webhooks among these rows about records the mirror has no row of. */
async function aboutUnknownRecords(sql: Sql, rows: readonly InboxRow[]): Promise<Set<number>> {
  const webhooks = rows.flatMap((row) =>
    row.channel === 'webhook' && row.parsed.ok ? [{ row, notice: row.parsed.notice }] : [],
  );
  if (webhooks.length === 0) return new Set();
  const known = await knownRecords(
    sql,
    webhooks.map(({ notice }) => ({ resource: notice.kind, id: notice.id })),
  );
  return new Set(
    webhooks.flatMap(({ row, notice }) =>
      known.has(recordKey(notice.kind, notice.id)) ? [] : [row.id],
    ),
  );
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
