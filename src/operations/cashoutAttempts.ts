import type { Sql } from '../db/client.js';
import { databaseNow } from '../db/clock.js';
import type { CashoutAttemptRow } from '../db/rows.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import type { GatewayClient } from '../gateway/index.js';
import { mirrorCashoutWithdrawal } from './requestCashout.js';
import { attemptById, listAttempts, resolveAttempt, type CashoutOutcome } from './sql.js';

export type CashoutAttempt = CashoutAttemptRow;

export function listCashoutAttempts(
  sql: Sql,
  outcome: CashoutOutcome | null,
  limit: number,
): Promise<CashoutAttempt[]> {
  return listAttempts(sql, outcome, limit);
}

class CashoutResolveError extends Error {
  override readonly name = 'CashoutResolveError';
}

/**
 * What an operator found about an attempt whose outcome was unknown (or left pending by a
 * crash). A paid one is checked against the gateway's record (same amount and PIX key) and
 * written to the mirror like any cashout answer.
 */
export async function resolveCashoutAttempt(
  deps: { sql: Sql; gateway: GatewayClient; policy: WatchPolicy },
  attemptId: number,
  found: { kind: 'paid'; withdrawalId: number } | { kind: 'not_paid' },
): Promise<CashoutAttempt> {
  const attempt = await attemptById(deps.sql, attemptId);
  if (!attempt) throw new CashoutResolveError(`no cashout attempt ${attemptId}`);
  if (attempt.outcome !== 'unknown' && attempt.outcome !== 'pending') {
    throw new CashoutResolveError(
      `cashout attempt ${attemptId} is ${attempt.outcome}, not unknown: nothing to resolve`,
    );
  }
  if (found.kind === 'paid') {
    const readAt = await databaseNow(deps.sql);
    const withdrawal = await deps.gateway.getWithdrawal(found.withdrawalId);
    if (withdrawal.amountCents !== attempt.amountCents || withdrawal.pixKey !== attempt.pixKey) {
      throw new CashoutResolveError(
        `withdrawal ${withdrawal.id} is ${withdrawal.amountCents} centavos to ${withdrawal.pixKey}, ` +
          `not attempt ${attemptId}'s ${attempt.amountCents} centavos to ${attempt.pixKey}`,
      );
    }
    await mirrorCashoutWithdrawal(deps, withdrawal, readAt);
  }
  const resolved = await resolveAttempt(deps.sql, attemptId, found);
  if (!resolved) throw new CashoutResolveError(`cashout attempt ${attemptId} changed meanwhile`);
  return resolved;
}
