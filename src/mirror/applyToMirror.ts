import type { Db, Tx } from '../db/client.js';
import { TX_NOW } from '../db/jsonRows.js';
import { sales, withdrawals } from '../db/schema.js';
import type { AbsentInput, MirrorInput, MirrorResult } from './inputs.js';
import { recordKey } from './inputs.js';
import { MirrorInsertRaceError, MirrorRows, retryingInsertRaces } from './mirrorRows.js';
import { MirrorWrites } from './mirrorWrites.js';
import type { PlanContext, Watch } from './planContext.js';
import { planSaleNotice, planSaleRead } from './planSale.js';
import { planWithdrawalNotice, planWithdrawalRead } from './planWithdrawal.js';

/**
 * The one writer of the mirror: sales, sale_items, withdrawals, status_history and
 * reconciliation discrepancies are written here and nowhere else. Inputs (notifications with
 * their provenance, gateway reads with their time, absences) are applied in the order given,
 * as if one after the other, inside the caller's transaction: every record they name is locked
 * at once (in id order), each input is decided by a pure planner against the state the ones
 * before it left, and the writes go out as a few multi-row statements. Once a record has a
 * deferred input, its later inputs are deferred too, so a record's order holds.
 */
export async function applyToMirror(
  tx: Tx,
  inputs: readonly MirrorInput[],
  watch: Watch,
): Promise<MirrorResult[]> {
  const batch = new MirrorBatch();
  const results = await batch.plan(tx, inputs, watch);
  await batch.write(tx);
  return results;
}

/**
 * applyToMirror in steps, for a caller that shares its round trips: lock the sales early
 * (`lockSalesNamedByInbox`, beside the caller's own first statement), plan, then write together
 * with the caller's own statements.
 */
export class MirrorBatch {
  private readonly saleRows = new MirrorRows(sales);
  private readonly withdrawalRows = new MirrorRows(withdrawals);
  private readonly writes = new MirrorWrites();

  /**
   * Locks the sales inbox rows name, needing no earlier answer. Then `salesNamedByInbox` with
   * the sales the rows name, so `plan` does not look them up again. The withdrawals they name
   * are locked by `plan`, by id, in a round trip of its own: few batches name one, and for the
   * others a statement sent blind cost more Postgres time to plan than to run
   * (bench/PERFORMANCE.md, session 19). Sales are still locked before withdrawals.
   */
  async lockSalesNamedByInbox(tx: Tx, inboxEventIds: readonly number[]): Promise<void> {
    await this.saleRows.lockNamedByInbox(tx, inboxEventIds);
  }

  /**
   * A sale the lock did not find has no history to read: the one writer inserts a sale's row
   * with its first history row and never deletes one. `plan` reads the history of the others,
   * after the locks. A backlog of new sales skips the statement (a drain +5 to +11 %,
   * bench/PERFORMANCE.md, session 30); a batch that moves sales the mirror holds pays a round
   * trip for it.
   */
  salesNamedByInbox(sale: readonly number[]): void {
    this.saleRows.markLookedUp(sale);
    this.writes.markLoaded({
      sale: sale.filter((id) => this.saleRows.get(id) === undefined),
      withdrawal: [],
    });
  }

  /** Locks what is not locked yet, and decides every input in order. Writes nothing. */
  async plan(tx: Tx, inputs: readonly MirrorInput[], watch: Watch): Promise<MirrorResult[]> {
    const records = recordsOf(inputs);
    await Promise.all([
      this.saleRows.lock(tx, records.sale),
      this.withdrawalRows.lock(tx, records.withdrawal),
      this.writes.loadSeen(tx, records),
    ]);
    const ctx: PlanContext = { watch, writes: this.writes };
    const deferred = new Set<string>();
    return inputs.map((input): MirrorResult => {
      const [resource, id] = target(input);
      const key = recordKey(resource, id);
      if (deferred.has(key)) return { outcome: 'deferred' };
      const result = plan(input, this.saleRows, this.withdrawalRows, ctx);
      if (result.outcome === 'deferred') deferred.add(key);
      return result;
    });
  }

  /**
   * Writes what `plan` decided, with the caller's `alongside` statements, in one round trip:
   * the statements are pipelined on the transaction's connection and run in the order sent, the
   * new rows first (items and history refer to them). An insert that lost a race fails the
   * transaction once every answer is in, the statements sent with it rolling back too; that
   * race is what is reported (it is what a new attempt mends), not the failures it caused in
   * the statements after it (a new sale's items colliding with the other transaction's).
   */
  async write(tx: Tx, alongside: () => readonly Promise<unknown>[] = () => []): Promise<void> {
    const settled = await Promise.allSettled([
      this.saleRows.writeInserts(tx),
      this.withdrawalRows.writeInserts(tx),
      this.saleRows.writeUpdates(tx),
      this.withdrawalRows.writeUpdates(tx),
      this.writes.write(tx, (id) => this.saleRows.inserts(id)),
      ...alongside(),
    ]);
    const failures = settled.flatMap((result) =>
      result.status === 'rejected' ? [result.reason as unknown] : [],
    );
    const race = failures.find((reason) => reason instanceof MirrorInsertRaceError);
    if (race !== undefined) throw race;
    if (failures.length > 0) throw failures[0];
  }
}

function plan(
  input: MirrorInput,
  saleRows: MirrorRows<typeof sales>,
  withdrawalRows: MirrorRows<typeof withdrawals>,
  ctx: PlanContext,
): MirrorResult {
  switch (input.kind) {
    case 'notice': {
      const { notice } = input;
      return notice.kind === 'sale'
        ? planSaleNotice(saleRows, { ...input, notice }, ctx)
        : planWithdrawalNotice(withdrawalRows, { ...input, notice }, ctx);
    }
    case 'read':
      return input.resource === 'sale'
        ? planSaleRead(saleRows, input, ctx)
        : planWithdrawalRead(withdrawalRows, input, ctx);
    case 'absent':
      return input.resource === 'sale'
        ? planAbsent(saleRows, input, ctx)
        : planAbsent(withdrawalRows, input, ctx);
  }
}

/**
 * The gateway answered that a record the mirror holds does not exist or is not ours: recorded,
 * and no longer watched. A record neither side has is nothing to record.
 */
function planAbsent(
  rows: MirrorRows<typeof sales> | MirrorRows<typeof withdrawals>,
  input: AbsentInput,
  ctx: PlanContext,
): MirrorResult {
  if (!rows.get(input.id)) return { outcome: 'absent' };
  rows.update(input.id, {
    nextReconcileAt: null,
    reconcileRequestedAt: null,
    reconcileReason: `gateway answered ${input.httpStatus}`,
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

/** applyToMirror in a transaction of its own, run again if it lost an insert race. */
export function writeMirror(
  db: Db,
  inputs: readonly MirrorInput[],
  watch: Watch,
): Promise<MirrorResult[]> {
  return retryingInsertRaces(() => db.transaction((tx) => applyToMirror(tx, inputs, watch)));
}
