import { describe, expect, it } from 'vitest';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import { withdrawalFeeMismatches } from '../../src/domain/withdrawalFees.js';
import type { GatewayWithdrawal } from '../../src/gateway/index.js';
import { writeMirror } from '../../src/mirror/applyToMirror.js';
import { useTestDatabase } from '../support/services.js';

// A withdrawal's fees are stored as the gateway states them; when they do not add up (total =
// fixed + variable, amount − total = net) that is recorded (docs/reconciliation.md).
const test = useTestDatabase();
const sql = () => test().database.sql;

const withdrawal = (fees: Partial<GatewayWithdrawal>): GatewayWithdrawal => ({
  id: 6101,
  status: 'PROCESSING',
  amountCents: 15050,
  netAmountCents: 14751,
  feeFixedCents: 200,
  feeVariableCents: 99,
  feeTotalCents: 299,
  pixKey: 'maria@example.com',
  pixKeyType: 'EMAIL',
  createdAt: new Date('2026-11-20T10:00:00Z'),
  updatedAt: new Date('2026-11-20T10:05:00Z'),
  ...fees,
});

async function read(record: GatewayWithdrawal): Promise<void> {
  await writeMirror(
    sql(),
    [
      {
        kind: 'read',
        resource: 'withdrawal',
        record,
        readAt: new Date(),
        context: { source: 'reconcile', inboxEventId: null },
        purpose: 'reconcile',
        runId: null,
      },
    ],
    { now: new Date(), policy: DEFAULT_WATCH_POLICY },
  );
}

const arithmetic = () => sql()<{ field: string; mirror_value: string; gateway_value: string }[]>`
  select field, mirror_value, gateway_value from reconciliation_discrepancies
   where resource_type = 'withdrawal' and resource_id = 6101 and source = 'fee_arithmetic'
   order by id`;

describe('withdrawal fees', () => {
  it('that add up record nothing', () => {
    expect(withdrawalFeeMismatches(withdrawal({}))).toEqual([]);
  });

  it('that do not add up are stored as stated, and each mismatch recorded once', async () => {
    const odd = withdrawal({ feeTotalCents: 300, netAmountCents: 14700 });
    await read(odd);
    const [stored] = await sql()`
      select fee_total_cents, net_amount_cents from withdrawals where id = 6101`;
    expect(stored).toEqual({ fee_total_cents: 300, net_amount_cents: 14700 });
    expect(await arithmetic()).toEqual([
      { field: 'fee_total_cents', mirror_value: '299', gateway_value: '300' },
      { field: 'net_amount_cents', mirror_value: '14750', gateway_value: '14700' },
    ]);
    // The same statement read again is nothing new.
    await read(odd);
    expect(await arithmetic()).toHaveLength(2);
  });
});
