import { describe, expect, it } from 'vitest';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import type { GatewayTransaction } from '../../src/gateway/types.js';
import { writeMirror } from '../../src/mirror/applyToMirror.js';
import { dbNow, saleRead, saleRecord } from '../support/mirrorInputs.js';
import { useTestDatabase } from '../support/services.js';

// Nulls follow the state's rule (docs/reconciliation.md): no reserve outside MED and
// CHARGEBACK; any other field a read leaves out keeps its value.
const test = useTestDatabase();
const sql = () => test().database.sql;
const watch = () => ({ now: new Date(), policy: DEFAULT_WATCH_POLICY });
const cents = (n: number) => n as GatewayTransaction['amountCents'];

async function read(record: GatewayTransaction) {
  await writeMirror(sql(), [saleRead(record, await dbNow(sql()))], watch());
}

describe('a read that leaves an optional field out', () => {
  it('clears the reserve once MED is won, and keeps the net and fee it does not give', async () => {
    const id = 83_001;
    await read(saleRecord(id, 'PAGO'));
    await read(saleRecord(id, 'MED', { reserveAmountCents: cents(9700) }));
    await read(
      saleRecord(id, 'PAGO', {
        reserveAmountCents: null,
        netAmountCents: null,
        systemFeeCents: null,
      }),
    );
    const [sale] = await sql()`
      select status, reserve_amount_cents, net_amount_cents, system_fee_cents from sales
       where id = ${id}`;
    expect(sale).toEqual({
      status: 'PAGO',
      reserve_amount_cents: null,
      net_amount_cents: 9600,
      system_fee_cents: 300,
    });
    const recorded = await sql()`
      select mirror_value, gateway_value from reconciliation_discrepancies
       where resource_id = ${id} and field = 'reserve_amount_cents'`;
    expect(recorded).toEqual([{ mirror_value: '9700', gateway_value: null }]);
  });

  it('keeps the reserve while the sale is in MED', async () => {
    const id = 83_002;
    await read(saleRecord(id, 'MED', { reserveAmountCents: cents(9700) }));
    await read(saleRecord(id, 'MED', { reserveAmountCents: null }));
    const [sale] = await sql()`select reserve_amount_cents from sales where id = ${id}`;
    expect(sale).toEqual({ reserve_amount_cents: 9700 });
  });
});
