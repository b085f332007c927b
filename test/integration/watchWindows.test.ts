import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import { writeMirror } from '../../src/mirror/applyToMirror.js';
import { createSale } from '../../src/operations/createSale.js';
import {
  clientFor,
  createdSaleWire,
  startFakeGateway,
  transactionWire,
  type FakeGateway,
} from '../gateway/fakeGateway.js';
import { useTestDatabase } from '../support/services.js';

// A pending PIX is watched until its own expiresAt (docs/reconciliation.md, "Reconciler"),
// which only the answer to paymirror's own sale carries: the mirror keeps it for later reads.
const test = useTestDatabase();
const DAY = 86_400_000;
const now = new Date();
const createdAt = new Date(now.getTime() - 3 * DAY);
const expiresAt = new Date(now.getTime() + 4 * DAY);
let gateway: FakeGateway;

beforeAll(async () => {
  gateway = await startFakeGateway((request) =>
    request.method === 'POST'
      ? {
          status: 201,
          body: createdSaleWire({
            id: 7001,
            createdAt: createdAt.toISOString(),
            payment: { method: 'PIX', pix: { key: 'k', expiresAt: expiresAt.toISOString() } },
          }),
        }
      : {
          status: 200,
          body: transactionWire({
            id: 7001,
            status: 'PENDENTE',
            date: createdAt.toISOString(),
            completedAt: null,
          }),
        },
  );
});
afterAll(async () => {
  await gateway?.close();
});

const sql = () => test().database.sql;
const client = () => clientFor(gateway);

async function row() {
  const [sale] = await sql()<{ pix_expires_at: Date | null; next_reconcile_at: Date | null }[]>`
    select pix_expires_at, next_reconcile_at from sales where id = 7001`;
  return sale;
}

describe('the watch window of a pending PIX', () => {
  it('comes from its expiresAt, kept in the mirror across later reads', async () => {
    await createSale(
      { sql: sql(), gateway: client(), policy: DEFAULT_WATCH_POLICY },
      {
        amountCents: 15000,
        paymentMethod: 'PIX',
        customer: { name: 'Maria', email: 'maria@example.com' },
        items: [],
      },
    );
    // Three days old: past the default 24 h expiry plus grace, but its own expiry is ahead.
    expect(await row()).toMatchObject({ pix_expires_at: expiresAt });
    expect((await row())?.next_reconcile_at).not.toBeNull();

    const readAt = new Date();
    await writeMirror(
      sql(),
      [
        {
          kind: 'read',
          resource: 'sale',
          record: await client().getTransaction(7001),
          readAt,
          context: { source: 'reconcile', inboxEventId: null },
          purpose: 'reconcile',
          runId: null,
        },
      ],
      { now: new Date(), policy: DEFAULT_WATCH_POLICY },
    );
    const after = await row();
    expect(after?.pix_expires_at).toEqual(expiresAt);
    expect(after?.next_reconcile_at).not.toBeNull();
  });
});
