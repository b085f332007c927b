import {
  allowGenericPlans,
  forceCustomPlans,
  transaction,
  type Fragment,
  type Sql,
  type Tx,
} from '../db/client.js';
import { TX_NOW } from '../db/jsonRows.js';
import { Bookkeeping } from './bookkeeping.js';
import type { AbsentInput, MirrorInput, MirrorResult } from './inputs.js';
import { recordKey } from './inputs.js';
import {
  MirrorInsertRaceError,
  retryingInsertRaces,
  saleRows,
  withdrawalRows,
  type SaleRows,
  type WithdrawalRows,
} from './mirrorRows.js';
import { MirrorWrites } from './mirrorWrites.js';
import type { PlanContext, Watch } from './planContext.js';
import { planNotice } from './planNotice.js';
import { planRead } from './planRead.js';
import { SALE } from './saleResource.js';
import { WITHDRAWAL } from './withdrawalResource.js';

export interface ApplyOptions {
  /**
   * Sales to lock before the inputs are known, so that the lock shares the caller's first
   * round trip: `sales`, an array expression naming them (the inbox's recordsNamedBy), and
   * `named`, the ids it names once the caller knows them. A sale among them the lock did not
   * find is new: neither locked again nor its history read.
   */
  readonly prelock?: { readonly sales: Fragment; readonly named: PromiseLike<readonly number[]> };
  /**
   * The caller's own statements, sent with the mirror's writes in one round trip, once every
   * input is decided (`results`, in the inputs' order).
   */
  readonly alongside?: (results: readonly MirrorResult[]) => Promise<unknown>;
}

/**
 * The one writer of the mirror: sales, sale_items, withdrawals, status_history and
 * reconciliation discrepancies are written here and nowhere else, and the books' journal follows
 * every change in the same transaction (bookkeeping.ts). Inputs (notifications with
 * their provenance, gateway reads with their time, absences) are applied in the order given,
 * as if one after the other, inside the caller's transaction: every record they name is locked
 * at once (in id order, sales before withdrawals), each input is decided by a pure planner
 * against the state the ones before it left, and the writes go out as a few multi-row
 * statements, pipelined with the caller's `alongside` (planned for their values, as the
 * writer's locks and updates are). Once a record has a deferred input, its later inputs are
 * deferred too, so a record's order holds.
 *
 * `inputs` may still be on their way (a promise): what needs no input is sent meanwhile.
 */
export async function applyToMirror(
  tx: Tx,
  inputs: readonly MirrorInput[] | PromiseLike<readonly MirrorInput[]>,
  watch: Watch,
  options: ApplyOptions = {},
): Promise<MirrorResult[]> {
  const sales = saleRows();
  const withdrawals = withdrawalRows();
  const writes = new MirrorWrites();
  const { prelock } = options;
  // The locks, the history read and the keyed updates find their rows by key however much
  // the tables grew since their statements were first prepared; the inserts have no plan to
  // choose (and their foreign key checks would be planned again for every row).
  const [decided, named] = await Promise.all([
    inputs,
    prelock?.named ?? [],
    Bookkeeping.share(tx),
    forceCustomPlans(tx),
    prelock && sales.lockWhere(tx, prelock.sales),
  ]);
  // A sale the lock did not find has no history to read: the one writer inserts a sale's row
  // with its first history row and never deletes one.
  sales.markLookedUp(named);
  writes.markLoaded({ sale: named.filter((id) => sales.get(id) === undefined), withdrawal: [] });

  const records = recordsOf(decided);
  const books = new Bookkeeping(records);
  await Promise.all([
    sales.lock(tx, records.sale),
    withdrawals.lock(tx, records.withdrawal),
    writes.loadSeen(tx, records),
    books.load(tx),
  ]);
  books.remember(sales, withdrawals);
  const results = planInOrder(decided, sales, withdrawals, { watch, writes });
  await settle([
    allowGenericPlans(tx),
    sales.writeInserts(tx),
    withdrawals.writeInserts(tx),
    ...writes.write(tx, (id) => sales.inserts(id)),
    forceCustomPlans(tx),
    sales.writeUpdates(tx),
    withdrawals.writeUpdates(tx),
    books.write(tx, decided, sales, withdrawals, watch.now),
    ...(options.alongside ? [options.alongside(results)] : []),
  ]);
  return results;
}

/** applyToMirror in a transaction of its own, run again if it lost an insert race. */
export function writeMirror(
  sql: Sql,
  inputs: readonly MirrorInput[],
  watch: Watch,
): Promise<MirrorResult[]> {
  return retryingInsertRaces(() => transaction(sql, (tx) => applyToMirror(tx, inputs, watch)));
}

function planInOrder(
  inputs: readonly MirrorInput[],
  sales: SaleRows,
  withdrawals: WithdrawalRows,
  ctx: PlanContext,
): MirrorResult[] {
  const deferred = new Set<string>();
  return inputs.map((input): MirrorResult => {
    const [resource, id] = target(input);
    const key = recordKey(resource, id);
    if (deferred.has(key)) return { outcome: 'deferred' };
    const result = plan(input, sales, withdrawals, ctx);
    if (result.outcome === 'deferred') deferred.add(key);
    return result;
  });
}

/**
 * Waits for every statement sent: the new rows go first (items and history refer to them),
 * and Postgres runs the statements in the order sent. An insert that lost a race fails the
 * transaction once every answer is in, the statements sent with it rolling back too; that race
 * is what is reported (it is what a new attempt mends), not the failures it caused in the
 * statements after it (a new sale's items colliding with the other transaction's).
 */
async function settle(statements: readonly Promise<unknown>[]): Promise<void> {
  const settled = await Promise.allSettled(statements);
  const failures = settled.flatMap((result) =>
    result.status === 'rejected' ? [result.reason as unknown] : [],
  );
  const race = failures.find((reason) => reason instanceof MirrorInsertRaceError);
  if (race !== undefined) throw race;
  if (failures.length > 0) throw failures[0];
}

function plan(
  input: MirrorInput,
  sales: SaleRows,
  withdrawals: WithdrawalRows,
  ctx: PlanContext,
): MirrorResult {
  switch (input.kind) {
    case 'notice': {
      const { notice } = input;
      return notice.kind === 'sale'
        ? planNotice(SALE, sales, { ...input, notice }, ctx)
        : planNotice(WITHDRAWAL, withdrawals, { ...input, notice }, ctx);
    }
    case 'read':
      return input.resource === 'sale'
        ? planRead(SALE, sales, input, ctx)
        : planRead(WITHDRAWAL, withdrawals, input, ctx);
    case 'absent':
      return input.resource === 'sale'
        ? planAbsent(sales, input, ctx)
        : planAbsent(withdrawals, input, ctx);
  }
}

/**
 * The gateway answered that a record the mirror holds does not exist or is not ours. Existence is
 * a fact of its own: a first denial is recorded and the record read again first; a second denying
 * read marks it denied (`denied_at`: out of every finance view and the books) and it is no longer
 * watched. An authentic observation restores it (see RESTORED). A record neither side has is
 * nothing to record.
 */
function planAbsent(
  rows: SaleRows | WithdrawalRows,
  input: AbsentInput,
  ctx: PlanContext,
): MirrorResult {
  const row = rows.get(input.id);
  if (!row) return { outcome: 'absent' };
  const confirmed = row.deniedAt !== null || row.denialReadAt !== null;
  rows.update(input.id, {
    ...(confirmed
      ? {
          ...(row.deniedAt === null ? { deniedAt: TX_NOW } : {}),
          nextReconcileAt: null,
          reconcileRequestedAt: null,
          reconcileReason: `gateway answered ${input.httpStatus}, confirmed by a second read`,
        }
      : {
          denialReadAt: TX_NOW,
          reconcileRequestedAt: TX_NOW,
          reconcileReason: `gateway answered ${input.httpStatus}; read again to confirm`,
        }),
    lastReconciledAt: TX_NOW,
  });
  ctx.writes.addDiscrepancies(
    input.resource,
    input.id,
    [{ field: 'existence', mirrorValue: 'present', gatewayValue: `HTTP ${input.httpStatus}` }],
    { action: 'not_found', source: 'reconcile', inboxEventId: null, runId: input.runId },
  );
  return { outcome: 'not_found' };
}

function target(input: MirrorInput): ['sale' | 'withdrawal', number] {
  switch (input.kind) {
    case 'notice':
      return [input.notice.kind, input.notice.id];
    case 'read':
      return [input.resource, input.record.id];
    case 'absent':
      return [input.resource, input.id];
  }
}

function recordsOf(inputs: readonly MirrorInput[]): { sale: number[]; withdrawal: number[] } {
  const records = { sale: new Set<number>(), withdrawal: new Set<number>() };
  for (const input of inputs) {
    const [resource, id] = target(input);
    records[resource].add(id);
  }
  return { sale: [...records.sale], withdrawal: [...records.withdrawal] };
}
