import { describe, expect, it } from 'vitest';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import type { GatewayClient, GatewayTransaction } from '../../src/gateway/types.js';
import { createLogger } from '../../src/log/logger.js';
import { writeMirror } from '../../src/mirror/applyToMirror.js';
import { runReconcilePass } from '../../src/reconciler/reconcilePass.js';
import { REPORTS, runReport, ALL_DAYS } from '../../src/reports/index.js';
import { dbNow, noticeInput, saleNotice, saleRead, saleRecord } from '../support/mirrorInputs.js';
import { useTestDatabase } from '../support/services.js';

// A read never moves a record out of a final status that a signed postback or a confirmed
// webhook set; observation order never compares two clocks (docs/reconciliation.md).
const test = useTestDatabase();
const sql = () => test().database.sql;
const watch = () => ({ now: new Date(), policy: DEFAULT_WATCH_POLICY });

async function signed(id: number, status: GatewayTransaction['status']) {
  const notice = saleNotice('postback', { id, status });
  return writeMirror(sql(), [noticeInput(notice, 'signed', await dbNow(sql()))], watch());
}

async function sale(id: number) {
  const [row] = await sql()<
    {
      status: string;
      disagreeing_reads: number;
      flagged: boolean;
      read_again: boolean;
    }[]
  >`select status, disagreeing_reads, flagged_at is not null as flagged,
           reconcile_requested_at is not null as read_again
      from sales where id = ${id}`;
  return row;
}

describe('a final status observed authentically', () => {
  it('is kept against reads that still say PAGO, recorded each time, then flagged', async () => {
    const id = 81_001;
    await signed(id, 'PAGO');
    await signed(id, 'ESTORNADO');
    // A replica or cache behind: reads begun after the refund still answer PAGO.
    for (const expected of [1, 2]) {
      const [result] = await writeMirror(
        sql(),
        [saleRead(saleRecord(id, 'PAGO'), await dbNow(sql()))],
        watch(),
      );
      expect(result?.outcome).toBe('held');
      expect(await sale(id)).toEqual({
        status: 'ESTORNADO',
        disagreeing_reads: expected,
        flagged: false,
        read_again: true,
      });
    }
    await writeMirror(sql(), [saleRead(saleRecord(id, 'PAGO'), await dbNow(sql()))], watch());
    expect(await sale(id)).toEqual({
      status: 'ESTORNADO',
      disagreeing_reads: 3,
      flagged: true,
      read_again: false,
    });
    const history = await sql()`
      select from_status, to_status from status_history
       where resource_id = ${id} and to_status = 'PAGO' and from_status = 'ESTORNADO'`;
    expect(history).toEqual([]);
    const discrepancies = await sql()`
      select field, mirror_value, gateway_value, action from reconciliation_discrepancies
       where resource_id = ${id} order by id`;
    expect(discrepancies).toHaveLength(3);
    expect(discrepancies[0]).toEqual({
      field: 'status',
      mirror_value: 'ESTORNADO',
      gateway_value: 'PAGO',
      action: 'recorded',
    });
    const flagged = await runReport(sql(), REPORTS.flagged, ALL_DAYS);
    expect(flagged).toEqual([
      expect.objectContaining({
        resource_type: 'sale',
        resource_id: id,
        status: 'ESTORNADO',
        status_set_by: 'signed',
        disagreeing_reads: 3,
      }),
    ]);

    // The gateway agrees again: the flag clears by itself.
    await writeMirror(sql(), [saleRead(saleRecord(id, 'ESTORNADO'), await dbNow(sql()))], watch());
    expect(await sale(id)).toMatchObject({ disagreeing_reads: 0, flagged: false });
  });

  it('a final status a read set is still corrected by a later read', async () => {
    const id = 81_002;
    await writeMirror(sql(), [saleRead(saleRecord(id, 'CANCELADO'), await dbNow(sql()))], watch());
    await writeMirror(sql(), [saleRead(saleRecord(id, 'PAGO'), await dbNow(sql()))], watch());
    expect(await sale(id)).toMatchObject({ status: 'PAGO' });
  });
});

describe('a reconciler whose host clock runs 5 s ahead', () => {
  it('takes the read time from Postgres: a MED signed while its GET was in flight stays', async () => {
    const id = 81_010;
    await signed(id, 'PAGO');
    // The GET begins; meanwhile the signed MED postback is applied; then the gateway answers
    // with what it had when the GET began (PAGO).
    const gateway = {
      async getTransaction(saleId: number) {
        await signed(saleId, 'MED');
        return saleRecord(saleId, 'PAGO');
      },
    } as unknown as GatewayClient;
    const summary = await runReconcilePass(
      {
        sql: sql(),
        gateway,
        policy: DEFAULT_WATCH_POLICY,
        logger: createLogger({ level: 'silent' }),
        now: () => new Date(Date.now() + 5000),
      },
      { kind: 'sale', id },
      'test',
    );
    expect(summary.errors).toBe(0);
    expect(await sale(id)).toMatchObject({ status: 'MED' });
    const reopened = await sql()`
      select 1 from status_history
       where resource_id = ${id} and from_status = 'MED' and to_status = 'PAGO'`;
    expect(reopened).toEqual([]);
  });
});
