import type { Db } from '../db/client.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import type { CashoutRequest, GatewayClient, GatewayWithdrawal } from '../gateway/index.js';
import { applyGatewayWithdrawal } from '../mirror/applyGatewayWithdrawal.js';

/**
 * Asks the gateway for a cashout (one attempt: it moves money) and writes the answer to the
 * mirror at once, with source 'api', so the withdrawal is known before any webhook.
 */
export async function requestCashout(
  deps: { db: Db; gateway: GatewayClient; policy: WatchPolicy },
  request: CashoutRequest,
): Promise<GatewayWithdrawal> {
  const readAt = new Date();
  const withdrawal = await deps.gateway.requestCashout(request);
  await deps.db.transaction((tx) =>
    applyGatewayWithdrawal(tx, withdrawal, {
      source: 'api',
      inboxEventId: null,
      readAt,
      now: new Date(),
      policy: deps.policy,
      reconciled: false,
    }),
  );
  return withdrawal;
}
