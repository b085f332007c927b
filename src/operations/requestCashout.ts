import type { Db } from '../db/client.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import type { CashoutRequest, GatewayClient, GatewayWithdrawal } from '../gateway/index.js';
import { writeMirror } from '../mirror/applyToMirror.js';

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
  await writeMirror(
    deps.db,
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
  return withdrawal;
}
