import type { Sql } from '../db/client.js';
import { databaseNow } from '../db/clock.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import { GatewayError } from '../gateway/gatewayError.js';
import type { GatewayClient } from '../gateway/types.js';
import type { Logger } from '../log/logger.js';
import { writeMirror } from '../mirror/applyToMirror.js';
import type { MirrorInput, MirrorResult } from '../mirror/inputs.js';
import { selectCandidates, type Candidate, type PassSelection } from './selectCandidates.js';
import { finishRun, insertRun } from './sql.js';
import { InvariantError } from '../lib/invariantError.js';

export interface ReconcileDeps {
  readonly sql: Sql;
  readonly gateway: GatewayClient;
  readonly policy: WatchPolicy;
  readonly logger: Logger;
  readonly now?: () => Date;
  readonly onProgress?: (done: number, total: number) => void;
}

type PassStatus = 'succeeded' | 'partial' | 'failed';

export interface PassSummary {
  readonly runId: number;
  readonly status: PassStatus;
  readonly checked: number;
  readonly unchanged: number;
  /** Records the mirror lacked, first learnt from the gateway. */
  readonly inserted: number;
  readonly corrected: number;
  readonly notFound: number;
  readonly errors: number;
  /** Differences recorded in reconciliation_discrepancies by this pass. */
  readonly discrepancies: number;
}

type CheckResult = {
  readonly result: 'unchanged' | 'inserted' | 'corrected' | 'notFound' | 'error';
  readonly discrepancies: number;
};

/**
 * One reconciliation pass (docs/architecture.md): for each selected row, read the gateway's record,
 * write its values with source 'reconcile', and record each difference under the run. A row the
 * gateway could not be asked about is left untouched and counted as an error; a pass with errors is
 * recorded partial or failed, never succeeded.
 */
export async function runReconcilePass(
  deps: ReconcileDeps,
  selection: PassSelection,
  trigger: string,
): Promise<PassSummary> {
  const runId = await insertRun(deps.sql, trigger);
  if (runId === null) throw new InvariantError('could not record the reconciliation run');
  const counts = {
    checked: 0,
    unchanged: 0,
    inserted: 0,
    corrected: 0,
    notFound: 0,
    errors: 0,
    discrepancies: 0,
  };
  try {
    const candidates = await selectCandidates(deps.sql, selection, deps.policy);
    for (const candidate of candidates) {
      const { result, discrepancies } = await checkOne(deps, runId, candidate);
      counts.checked += 1;
      counts[result === 'error' ? 'errors' : result] += 1;
      counts.discrepancies += discrepancies;
      deps.onProgress?.(counts.checked, candidates.length);
    }
  } catch (error) {
    await finishRun(deps.sql, runId, 'failed', counts, describe(error));
    throw error;
  }
  const status: PassStatus =
    counts.errors === 0 ? 'succeeded' : counts.errors < counts.checked ? 'partial' : 'failed';
  await finishRun(deps.sql, runId, status, counts, null);
  return { runId, status, ...counts };
}

async function checkOne(
  deps: ReconcileDeps,
  runId: number,
  candidate: Candidate,
): Promise<CheckResult> {
  const now = deps.now ?? (() => new Date());
  const input = await readCandidate(deps, runId, candidate);
  if (input === null) return { result: 'error', discrepancies: 0 };
  const [written] = await writeMirror(deps.sql, [input], { now: now(), policy: deps.policy });
  return classify(written);
}

/** The gateway's record as a mirror input; null when the gateway could not tell now. */
async function readCandidate(
  deps: ReconcileDeps,
  runId: number,
  candidate: Candidate,
): Promise<MirrorInput | null> {
  // The database's time, before the GET: never this host's clock (observation order).
  const readAt = await databaseNow(deps.sql);
  const base = {
    kind: 'read',
    readAt,
    context: { source: 'reconcile', inboxEventId: null },
    purpose: 'reconcile',
    runId,
  } as const;
  try {
    return candidate.resource === 'sale'
      ? { ...base, resource: 'sale', record: await deps.gateway.getTransaction(candidate.id) }
      : { ...base, resource: 'withdrawal', record: await deps.gateway.getWithdrawal(candidate.id) };
  } catch (error) {
    if (error instanceof GatewayError && error.isNotOurs) {
      return { kind: 'absent', ...candidate, httpStatus: error.status ?? 0, runId };
    }
    // Down, limiting us, or an answer that says nothing about the record (401, 403 shape C, a
    // proxy's 404): the row is left as it is and stays scheduled.
    deps.logger.warn(
      { err: error, ...candidate },
      'reconcile: cannot read the gateway record; row left as is',
    );
    return null;
  }
}

function classify(written: MirrorResult | undefined): CheckResult {
  switch (written?.outcome) {
    case 'applied':
      // A row first learnt from the gateway was missing, not wrong.
      return written.from === null
        ? { result: 'inserted', discrepancies: 0 }
        : { result: 'corrected', discrepancies: written.differences };
    case 'noop':
      return written.differences > 0
        ? { result: 'corrected', discrepancies: written.differences }
        : { result: 'unchanged', discrepancies: 0 };
    case 'held':
      // A final status an authentic observation set is kept; the difference is recorded.
      return { result: 'unchanged', discrepancies: 1 };
    case 'not_found':
      return { result: 'notFound', discrepancies: 1 };
    case 'absent':
      // On neither side: not found, and nothing the mirror holds is wrong.
      return { result: 'notFound', discrepancies: 0 };
    default:
      // Stale: a newer answer or status is already in the mirror.
      return { result: 'unchanged', discrepancies: 0 };
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
