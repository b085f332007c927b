import type { Sql } from '../db/client.js';
import { databaseNow } from '../db/clock.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import {
  GatewayError,
  type CashoutRequest,
  type GatewayClient,
  type GatewayWithdrawal,
} from '../gateway/index.js';
import type { Logger } from '../log/logger.js';
import { writeMirror } from '../mirror/applyToMirror.js';
import { cashoutFailureOutcome } from './cashoutOutcome.js';
import type { CashoutAttemptRow } from '../db/rows.js';
import { attemptFailed, attemptSucceeded, insertAttempt, oldestUnresolvedAttempt } from './sql.js';
import { InvariantError } from '../lib/invariantError.js';

export type CashoutResult =
  | {
      readonly kind: 'succeeded';
      readonly attemptId: number;
      readonly withdrawal: GatewayWithdrawal;
      /** Null when written; else why the mirror (or the attempt row) could not be: paid all the same. */
      readonly recordError: string | null;
    }
  /** The gateway refused it in words: nothing was paid. */
  | { readonly kind: 'rejected'; readonly attemptId: number; readonly error: GatewayError }
  /** No clear answer: it may have paid. Check before sending it again. */
  | { readonly kind: 'unknown'; readonly attemptId: number; readonly error: unknown }
  /** Not sent: an earlier attempt's outcome is still pending or unknown. */
  | { readonly kind: 'blocked'; readonly blockedBy: CashoutAttemptRow };

export interface CashoutDeps {
  readonly sql: Sql;
  readonly gateway: GatewayClient;
  readonly policy: WatchPolicy;
  readonly logger: Logger;
}

/**
 * Asks the gateway for a cashout: the attempt is a row before the POST, the POST is sent once
 * (it moves money), and its outcome is recorded; a success is written to the mirror at once
 * (source 'api'), so the withdrawal is known before any webhook. While an earlier attempt's
 * outcome is pending or unknown nothing is sent (it may have paid), unless `forced`.
 */
export async function requestCashout(
  deps: CashoutDeps,
  request: CashoutRequest,
  options: { readonly forced?: boolean } = {},
): Promise<CashoutResult> {
  const attemptId = await recordAttempt(deps.sql, request, options.forced === true);
  if (typeof attemptId !== 'number') return { kind: 'blocked', blockedBy: attemptId };

  const readAt = await databaseNow(deps.sql);
  let withdrawal: GatewayWithdrawal;
  try {
    withdrawal = await deps.gateway.requestCashout(request);
  } catch (error) {
    return failed(deps, attemptId, error);
  }
  const recordError = await recordSuccess(deps, attemptId, withdrawal, readAt).then(
    () => null,
    (error: unknown) => {
      deps.logger.error(
        { err: error, attemptId, withdrawalId: withdrawal.id },
        'cashout paid, but not recorded: reconciliation will bring the withdrawal',
      );
      return error instanceof Error ? error.message : String(error);
    },
  );
  return { kind: 'succeeded', attemptId, withdrawal, recordError };
}

/** The new attempt's id, or the unresolved attempt that holds the guard. */
async function recordAttempt(
  sql: Sql,
  request: CashoutRequest,
  forced: boolean,
): Promise<number | CashoutAttemptRow> {
  const row = { amountCents: request.amountCents, pixKey: request.pixKey, forced };
  // The holder may be resolved between the refused insert and the look-up: try again then.
  for (let round = 0; round < 3; round += 1) {
    const attemptId = await insertAttempt(sql, { ...row, pixKeyType: request.pixKeyType ?? null });
    if (attemptId !== null) return attemptId;
    const holder = await oldestUnresolvedAttempt(sql);
    if (holder) return holder;
  }
  throw new InvariantError('the cashout attempt was not recorded');
}

async function failed(
  deps: CashoutDeps,
  attemptId: number,
  error: unknown,
): Promise<CashoutResult> {
  const outcome = cashoutFailureOutcome(error);
  const rawAnswer = error instanceof GatewayError ? error.rawAnswer : null;
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  // A refusal is the command's own answer (printed); an unknown outcome is an incident.
  (outcome === 'unknown' ? deps.logger.error : deps.logger.info).call(
    deps.logger,
    { attemptId, outcome, detail, rawAnswer },
    outcome === 'unknown'
      ? 'cashout outcome unknown: it may have been paid; check before sending it again'
      : 'cashout refused by the gateway',
  );
  await attemptFailed(deps.sql, attemptId, { outcome, detail: detail.slice(0, 2000), rawAnswer });
  return outcome === 'unknown'
    ? { kind: 'unknown', attemptId, error }
    : { kind: 'rejected', attemptId, error: error as GatewayError };
}

async function recordSuccess(
  deps: CashoutDeps,
  attemptId: number,
  withdrawal: GatewayWithdrawal,
  readAt: Date,
): Promise<void> {
  await attemptSucceeded(deps.sql, attemptId, withdrawal.id);
  await mirrorCashoutWithdrawal(deps, withdrawal, readAt);
}

/**
 * A cashout's withdrawal as the gateway answered it (the POST's answer, or a GET of a paid
 * attempt an operator resolved), written to the mirror as an API read taken at `readAt`.
 */
export async function mirrorCashoutWithdrawal(
  deps: Pick<CashoutDeps, 'sql' | 'policy'>,
  withdrawal: GatewayWithdrawal,
  readAt: Date,
): Promise<void> {
  await writeMirror(
    deps.sql,
    [
      {
        kind: 'read',
        resource: 'withdrawal',
        record: withdrawal,
        readAt,
        context: { source: 'api', inboxEventId: null },
        purpose: 'api',
        runId: null,
      },
    ],
    { now: new Date(), policy: deps.policy },
  );
}
