import { eq, sql } from 'drizzle-orm';
import type { Tx } from '../db/client.js';
import { withdrawals } from '../db/schema.js';
import { sameWithdrawalOutcome, type WithdrawalStatus } from '../domain/withdrawalMachine.js';
import type { GatewayWithdrawal } from '../gateway/types.js';
import {
  afterGatewayRead,
  type GatewayWriteContext,
  type GatewayWriteResult,
} from './applyGatewayTransaction.js';
import { compareWithGateway } from './compareFields.js';
import { appendHistory } from './history.js';

/** The withdrawal twin of applyGatewayTransaction. REJECTED in the mirror equals FAILED read. */
export async function applyGatewayWithdrawal(
  tx: Tx,
  gateway: GatewayWithdrawal,
  context: GatewayWriteContext,
): Promise<GatewayWriteResult> {
  const values: typeof withdrawals.$inferInsert = {
    id: gateway.id,
    status: gateway.status,
    amountCents: gateway.amountCents,
    netAmountCents: gateway.netAmountCents,
    feeFixedCents: gateway.feeFixedCents,
    feeVariableCents: gateway.feeVariableCents,
    feeTotalCents: gateway.feeTotalCents,
    pixKey: gateway.pixKey,
    pixKeyType: gateway.pixKeyType,
    createdAt: gateway.createdAt,
    gatewayUpdatedAt: gateway.updatedAt,
  };
  const schedule = afterGatewayRead(
    { resource: 'withdrawal', status: gateway.status, createdAt: gateway.createdAt },
    context,
  );

  const [current] = await tx
    .select()
    .from(withdrawals)
    .where(eq(withdrawals.id, gateway.id))
    .for('update');
  if (!current) {
    const inserted = await tx
      .insert(withdrawals)
      .values({ ...values, ...schedule })
      .onConflictDoNothing()
      .returning({ id: withdrawals.id });
    if (inserted.length === 0) return applyGatewayWithdrawal(tx, gateway, context);
    await appendHistory(tx, 'withdrawal', gateway.id, null, gateway.status, context);
    return { outcome: 'applied', from: null, to: gateway.status, differences: [] };
  }
  if (current.gatewayReadAt && current.gatewayReadAt > context.readAt) {
    return { outcome: 'stale', reason: 'a newer gateway answer is already in the mirror' };
  }
  // The same final failure under its two names is no move and no discrepancy.
  const sameStatus = sameWithdrawalOutcome(current.status as WithdrawalStatus, gateway.status);
  const { update, differences } = compareWithGateway(current, {
    ...values,
    status: sameStatus ? current.status : gateway.status,
  });
  await tx
    .update(withdrawals)
    .set({ ...update, ...schedule, updatedAt: sql`now()` })
    .where(eq(withdrawals.id, gateway.id));
  if (!sameStatus) {
    await appendHistory(tx, 'withdrawal', gateway.id, current.status, gateway.status, context);
  }
  return {
    outcome: sameStatus ? 'noop' : 'applied',
    from: current.status,
    to: sameStatus ? current.status : gateway.status,
    differences,
  };
}
