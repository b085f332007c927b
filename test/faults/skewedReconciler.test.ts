import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import { createGatewayClient } from '../../src/gateway/index.js';
import { createLogger } from '../../src/log/logger.js';
import { writeMirror } from '../../src/mirror/applyToMirror.js';
import { runReconcilePass } from '../../src/reconciler/reconcilePass.js';
import { dbNow, noticeInput, saleNotice } from '../support/mirrorInputs.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { createTestDatabase, type TestDatabase } from '../support/services.js';

// A reconciler whose host clock runs 5 s ahead of Postgres (the host clock is faked in this
// process): a read begun before a signed refund cannot undo it, and a later read that still
// says PAGO (a gateway replica behind) does not either. Read times come from Postgres.
let db: TestDatabase;
let gateway: TestSandbox;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestSandbox();
});
afterAll(async () => {
  vi.useRealTimers();
  await gateway?.close();
  await db?.drop();
});

describe('a reconciler 5 s ahead of Postgres', () => {
  it('never moves a sale out of the refund a signed postback set', async () => {
    const sql = db.database.sql;
    const id = await gateway.createSale({ amount: 8800 });
    await gateway.control(`/sales/${id}/status`, { status: 'PAGO' });
    const watch = { now: new Date(), policy: DEFAULT_WATCH_POLICY };
    const signed = async (status: 'PAGO' | 'ESTORNADO') =>
      writeMirror(
        sql,
        [
          noticeInput(
            saleNotice('postback', { id, status, amount: '8800' }),
            'signed',
            await dbNow(sql),
          ),
        ],
        watch,
      );
    await signed('PAGO');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(Date.now() + 5000));
    const client = createGatewayClient({
      baseUrl: gateway.url,
      publicKey: gateway.publicKey,
      privateKey: gateway.privateKey,
      retry: { attempts: 1 },
    });
    const deps = {
      sql,
      gateway: {
        ...client,
        // The GET is answered as of its start (PAGO); the refund is signed meanwhile.
        async getTransaction(saleId: number) {
          const answer = await client.getTransaction(saleId);
          await signed('ESTORNADO');
          return answer;
        },
      },
      policy: DEFAULT_WATCH_POLICY,
      logger: createLogger({ level: 'silent' }),
    };
    await runReconcilePass(deps, { kind: 'sale', id }, 'fault');
    // Later reads still answer PAGO: the gateway has not caught up.
    await runReconcilePass({ ...deps, gateway: client }, { kind: 'sale', id }, 'fault');
    vi.useRealTimers();
    const [sale] = await sql<{ status: string }[]>`select status from sales where id = ${id}`;
    expect(sale?.status).toBe('ESTORNADO');
    const reopened = await sql`
      select 1 from status_history
       where resource_id = ${id} and from_status = 'ESTORNADO' and to_status = 'PAGO'`;
    expect(reopened).toEqual([]);
  });
});
