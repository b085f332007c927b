import { eq, sql as drizzleSql } from 'drizzle-orm';
import type { Db, Sql } from '../db/client.js';
import {
  reconciliationDiscrepancies,
  reconciliationRuns,
  sales,
  withdrawals,
} from '../db/schema.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import { GatewayError } from '../gateway/gatewayError.js';
import type { GatewayClient } from '../gateway/types.js';
import type { Logger } from '../log/logger.js';
import {
  applyGatewayTransaction,
  type GatewayWriteResult,
} from '../mirror/applyGatewayTransaction.js';
import { applyGatewayWithdrawal } from '../mirror/applyGatewayWithdrawal.js';
import type { FieldDifference } from '../mirror/compareFields.js';
import { selectCandidates, type Candidate, type PassSelection } from './selectCandidates.js';

export interface ReconcileDeps {
  readonly db: Db;
  readonly sql: Sql;
  readonly gateway: GatewayClient;
  readonly policy: WatchPolicy;
  readonly logger: Logger;
  readonly now?: () => Date;
  readonly onProgress?: (done: number, total: number) => void;
}

export type PassStatus = 'succeeded' | 'partial' | 'failed';

export interface PassSummary {
  readonly runId: number;
  readonly status: PassStatus;
  readonly checked: number;
  readonly unchanged: number;
  readonly corrected: number;
  readonly notFound: number;
  readonly errors: number;
  /** Differences recorded in reconciliation_discrepancies by this pass. */
  readonly discrepancies: number;
}

type CheckResult = {
  readonly result: 'unchanged' | 'corrected' | 'notFound' | 'error';
  readonly discrepancies: number;
};

/**
 * One reconciliation pass (DESIGN 7): for each selected row, read the gateway's record, write
 * its values with source 'reconcile', and record each difference under the run. A row the
 * gateway could not be asked about is left untouched and counted as an error; a pass with
 * errors is recorded partial or failed, never succeeded.
 */
export async function runReconcilePass(
  deps: ReconcileDeps,
  selection: PassSelection,
  trigger: string,
): Promise<PassSummary> {
  const [run] = await deps.db
    .insert(reconciliationRuns)
    .values({ trigger, status: 'running' })
    .returning({ id: reconciliationRuns.id });
  if (!run) throw new Error('could not record the reconciliation run');
  const counts = {
    checked: 0,
    unchanged: 0,
    corrected: 0,
    notFound: 0,
    errors: 0,
    discrepancies: 0,
  };
  try {
    const candidates = await selectCandidates(deps.sql, selection, deps.policy);
    for (const candidate of candidates) {
      const { result, discrepancies } = await checkOne(deps, run.id, candidate);
      counts.checked += 1;
      counts[result === 'error' ? 'errors' : result] += 1;
      counts.discrepancies += discrepancies;
      deps.onProgress?.(counts.checked, candidates.length);
    }
  } catch (error) {
    await finishRun(deps.db, run.id, 'failed', counts, describe(error));
    throw error;
  }
  const status: PassStatus =
    counts.errors === 0 ? 'succeeded' : counts.errors < counts.checked ? 'partial' : 'failed';
  await finishRun(deps.db, run.id, status, counts, null);
  return { runId: run.id, status, ...counts };
}

async function checkOne(
  deps: ReconcileDeps,
  runId: number,
  candidate: Candidate,
): Promise<CheckResult> {
  const now = deps.now ?? (() => new Date());
  const readAt = now();
  let record;
  try {
    record =
      candidate.resource === 'sale'
        ? { kind: 'sale' as const, value: await deps.gateway.getTransaction(candidate.id) }
        : { kind: 'withdrawal' as const, value: await deps.gateway.getWithdrawal(candidate.id) };
  } catch (error) {
    if (error instanceof GatewayError && error.isNotOurs) {
      await recordNotFound(deps.db, runId, candidate, error.status ?? 0);
      return { result: 'notFound', discrepancies: 1 };
    }
    deps.logger.warn(
      { err: error, ...candidate },
      'reconcile: cannot read the gateway record; row left as is',
    );
    return { result: 'error', discrepancies: 0 };
  }
  return deps.db.transaction(async (tx) => {
    const context = {
      source: 'reconcile' as const,
      inboxEventId: null,
      readAt,
      now: now(),
      policy: deps.policy,
      reconciled: true,
    };
    const written: GatewayWriteResult =
      record.kind === 'sale'
        ? await applyGatewayTransaction(tx, record.value, context)
        : await applyGatewayWithdrawal(tx, record.value, context);
    if (written.outcome === 'stale') return { result: 'unchanged', discrepancies: 0 };
    const differences: FieldDifference[] = written.differences;
    if (differences.length === 0 && written.outcome === 'noop') {
      return { result: 'unchanged', discrepancies: 0 };
    }
    if (differences.length > 0) {
      await tx.insert(reconciliationDiscrepancies).values(
        differences.map((difference) => ({
          runId,
          resourceType: candidate.resource,
          resourceId: candidate.id,
          field: difference.field,
          mirrorValue: difference.mirrorValue,
          gatewayValue: difference.gatewayValue,
          action: 'corrected',
          source: 'reconcile',
        })),
      );
    }
    // A row first learnt from the gateway is new, not a correction of something wrong.
    return {
      result: written.from === null ? 'unchanged' : 'corrected',
      discrepancies: differences.length,
    };
  });
}

/** The gateway does not know the record (or it is not ours): recorded, and no longer watched. */
async function recordNotFound(
  db: Db,
  runId: number,
  candidate: Candidate,
  status: number,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.insert(reconciliationDiscrepancies).values({
      runId,
      resourceType: candidate.resource,
      resourceId: candidate.id,
      field: 'existence',
      mirrorValue: 'present',
      gatewayValue: `HTTP ${status}`,
      action: 'not_found',
      source: 'reconcile',
    });
    const table = candidate.resource === 'sale' ? sales : withdrawals;
    await tx
      .update(table)
      .set({
        nextReconcileAt: null,
        reconcileRequestedAt: null,
        reconcileReason: `gateway answered ${status}`,
        lastReconciledAt: drizzleSql`now()`,
      })
      .where(eq(table.id, candidate.id));
  });
}

async function finishRun(
  db: Db,
  runId: number,
  status: PassStatus,
  counts: Omit<PassSummary, 'runId' | 'status'>,
  error: string | null,
): Promise<void> {
  const { checked, unchanged, corrected, notFound, errors } = counts;
  await db
    .update(reconciliationRuns)
    .set({
      status,
      checked,
      unchanged,
      corrected,
      notFound,
      errors,
      error,
      finishedAt: drizzleSql`now()`,
    })
    .where(eq(reconciliationRuns.id, runId));
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
