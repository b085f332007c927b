import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/client.js';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import { SALE_STATUSES } from '../../src/domain/saleMachine.js';
import { WITHDRAWAL_STATUSES } from '../../src/domain/withdrawalMachine.js';
import {
  processInboxBatch,
  type BatchItemResult,
  type ProcessDeps,
} from '../../src/worker/processInboxBatch.js';
import { postbackBody, webhookSaleBody, withdrawalBody } from '../support/fixtures.js';
import { createTestDatabase, type TestDatabase } from '../support/services.js';

// The batch path must leave the mirror exactly as the one-by-one path does, for any sequence
// of deliveries cut into any batches: same rows, history, items, outcomes, discrepancies.
let oneByOne: TestDatabase;
let batched: TestDatabase;

beforeAll(async () => {
  [oneByOne, batched] = await Promise.all([createTestDatabase(), createTestDatabase()]);
});
afterAll(async () => {
  await Promise.all([oneByOne?.drop(), batched?.drop()]);
});

type Delivery = { channel: 'postback' | 'webhook'; payload: Record<string, unknown> };

const saleDelivery = fc
  .record({
    channel: fc.constantFrom('postback' as const, 'webhook' as const),
    id: fc.constantFrom(1001, 1002, 1003),
    status: fc.constantFrom(...SALE_STATUSES),
    paymentMethod: fc.constantFrom('PIX', 'CREDIT_CARD', 'BOLETO'),
    amount: fc.constantFrom('15000', '15001'),
    customerName: fc.option(fc.constant('Maria da Silva'), { nil: null }),
    items: fc.option(fc.subarray([1, 2, 3], { minLength: 1 }), { nil: undefined }),
  })
  .map(({ channel, id, items, ...sale }): Delivery => {
    const fields = {
      id,
      ...sale,
      ...(items === undefined
        ? { saleItems: undefined }
        : {
            saleItems: items.map((item) => ({
              id: item,
              saleId: id,
              title: `item ${item}`,
              unitPrice: '500',
              quantity: 1,
              tangible: true,
            })),
          }),
    };
    return {
      channel,
      payload: channel === 'postback' ? postbackBody(fields) : webhookSaleBody(fields),
    };
  });

const withdrawalDelivery = fc
  .record({
    id: fc.constantFrom(2001, 2002),
    status: fc.constantFrom(...WITHDRAWAL_STATUSES),
    updatedAt: fc.constantFrom(
      '2026-11-20T10:00:00.000Z',
      '2026-11-20T11:00:00.000Z',
      '2026-11-20T12:00:00.000Z',
    ),
    pixKey: fc.option(fc.constant('12345678909'), { nil: null }),
  })
  .map((w): Delivery => ({ channel: 'webhook', payload: withdrawalBody(w) }));

const unparseable = fc.constant<Delivery>({ channel: 'postback', payload: { id: 'not a sale' } });

const deliveries = fc.array(
  fc.oneof(
    { arbitrary: saleDelivery, weight: 6 },
    { arbitrary: withdrawalDelivery, weight: 3 },
    { arbitrary: unparseable, weight: 1 },
  ),
  { minLength: 1, maxLength: 16 },
);

async function oneRow(deps: ProcessDeps, id: number): Promise<BatchItemResult | undefined> {
  return (await processInboxBatch(deps, [id], { read: false })).get(id);
}

describe('processInboxBatch', () => {
  it('leaves the mirror as one row after another does', async () => {
    await fc.assert(
      fc.asyncProperty(
        deliveries,
        fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 16, maxLength: 16 }),
        async (sequence, cuts) => {
          await Promise.all([reset(oneByOne), reset(batched)]);
          const ids = await storeAll(oneByOne, sequence);
          expect(await storeAll(batched, sequence)).toEqual(ids);

          const single = deps(oneByOne);
          const expected = new Map<number, BatchItemResult | undefined>();
          for (const id of ids) expected.set(id, await oneRow(single, id));

          const together = deps(batched);
          const actual = new Map<number, BatchItemResult | undefined>();
          let from = 0;
          for (const size of cuts) {
            const batch = ids.slice(from, from + size);
            from += size;
            if (batch.length === 0) break;
            for (const [id, result] of await processInboxBatch(together, batch, { read: false })) {
              expect(result.kind).not.toBe('forward');
              actual.set(id, result);
            }
          }
          for (const id of ids.slice(from)) actual.set(id, await oneRow(together, id));

          expect(actual).toEqual(expected);
          expect(await snapshot(batched)).toEqual(await snapshot(oneByOne));
        },
      ),
      { numRuns: 25 },
    );
  }, 180_000);

  it('skips rows already finished and reports ids it does not know', async () => {
    await reset(batched);
    const [id] = await storeAll(batched, [
      { channel: 'postback', payload: postbackBody({ id: 1001, status: 'PAGO' }) },
    ]);
    const first = await processInboxBatch(deps(batched), [id!, 999_999], { read: false });
    expect(first.get(id!)).toMatchObject({ kind: 'done', outcome: 'applied' });
    expect(first.get(999_999)).toEqual({ kind: 'missing' });
    const again = await processInboxBatch(deps(batched), [id!], { read: false });
    expect(again.get(id!)).toEqual({ kind: 'skipped', state: 'processed' });
  });

  it('locks the withdrawals table only for a batch that names a withdrawal', async () => {
    // A lock statement for a table the batch does not touch finds nothing, and Postgres spends
    // more time planning it than running it. Whether a batch
    // touches the table shows as waiting for it while another transaction holds it exclusively.
    await reset(batched);
    const sales = await storeAll(batched, [
      { channel: 'postback', payload: postbackBody({ id: 1001, status: 'PAGO' }) },
      { channel: 'postback', payload: postbackBody({ id: 1002, status: 'PAGO' }) },
    ]);
    expect(
      await whileWithdrawalsLocked(() => processInboxBatch(deps(batched), sales, { read: false })),
    ).toBe('finished');
    expect(await batched.database.sql`select id from sales order by id`).toEqual([
      { id: 1001 },
      { id: 1002 },
    ]);

    const named = await storeAll(batched, [
      { channel: 'postback', payload: postbackBody({ id: 1003, status: 'PAGO' }) },
      {
        channel: 'webhook',
        payload: withdrawalBody({
          id: 2001,
          status: 'PENDING',
          updatedAt: '2026-11-20T10:00:00.000Z',
        }),
      },
    ]);
    expect(
      await whileWithdrawalsLocked(() => processInboxBatch(deps(batched), named, { read: false })),
    ).toBe('waited');
    expect(await batched.database.sql`select id, status from withdrawals`).toEqual([
      { id: 2001, status: 'PENDING' },
    ]);
  });

  it('reads the history of the sales the mirror holds, not of those it is creating', async () => {
    // A new sale has no history to read: reading it anyway in every batch of a backlog costs about
    // a tenth of a drain's Postgres time. Reads of status_history show in
    // its statistics, flushed by the one connection that ran the batch. A database of its own: the
    // shared one's other connections would flush their earlier tests' reads at any moment.
    const own = await createTestDatabase();
    const reader = createDatabase(own.url, { max: 1 });
    const historyReads = async () => {
      await reader.sql`select pg_stat_force_next_flush()`;
      const [row] = await own.database.sql<{ reads: string }[]>`
        select t.seq_scan + coalesce(sum(i.idx_scan), 0) as reads
          from pg_stat_user_tables t
          left join pg_stat_user_indexes i
            on i.relid = t.relid and i.indexrelname <> 'status_history_inbox_event_status_uq'
         where t.relname = 'status_history'
         group by t.seq_scan`;
      return Number(row?.reads);
    };
    try {
      const readerDeps = { ...deps(own), sql: reader.sql };
      const created = await storeAll(own, [
        {
          channel: 'postback',
          payload: postbackBody({ id: 1001, status: 'PENDENTE' }),
        },
        { channel: 'postback', payload: postbackBody({ id: 1002, status: 'PAGO' }) },
      ]);
      const before = await historyReads();
      const first = await processInboxBatch(readerDeps, created, { read: false });
      expect([...first.values()]).toMatchObject([{ outcome: 'applied' }, { outcome: 'applied' }]);
      expect(await historyReads()).toBe(before);

      // A sale the mirror holds: its history is read, so a status it already went through is
      // not recorded again.
      const [moved, again] = await storeAll(own, [
        { channel: 'postback', payload: postbackBody({ id: 1001, status: 'PAGO' }) },
        {
          channel: 'postback',
          payload: postbackBody({ id: 1001, status: 'PENDENTE' }),
        },
      ]);
      await processInboxBatch(readerDeps, [moved!], { read: false });
      const between = await historyReads();
      expect(between).toBeGreaterThan(before);
      const late = await processInboxBatch(readerDeps, [again!], { read: false });
      expect(late.get(again!)).toMatchObject({ outcome: 'stale' });
      expect(await historyReads()).toBeGreaterThan(between);
      expect(
        await own.database.sql`
          select to_status from status_history where resource_id = 1001 order by id`,
      ).toEqual([{ to_status: 'PENDENTE' }, { to_status: 'PAGO' }]);
    } finally {
      await reader.close();
      await own.drop();
    }
  });

  it('locks and compares the record of a row the ingress could not name', async () => {
    // Rows are locked and compared by the resource_id the ingress stored; one without it (a row
    // the ingress could not read that this worker can) must still find its sale and its deliveries.
    await reset(batched);
    const [postback, webhook] = await storeAll(batched, [
      { channel: 'postback', payload: postbackBody({ id: 1001, status: 'PAGO', amount: '15000' }) },
      {
        channel: 'webhook',
        payload: webhookSaleBody({ id: 1001, status: 'PAGO', amount: '15001' }),
      },
    ]);
    expect(await oneRow(deps(batched), postback!)).toMatchObject({ kind: 'done' });
    await batched.database.sql`
      update inbox_events set resource_type = null, resource_id = null where id = ${webhook!}`;

    expect(await oneRow(deps(batched), webhook!)).toMatchObject({
      kind: 'done',
      crossChannelDisagreement: true,
    });
    const discrepancies = await batched.database.sql`
      select mirror_value, gateway_value from reconciliation_discrepancies
       where source = 'cross_channel' and resource_id = 1001`;
    expect(discrepancies).toEqual([{ mirror_value: '15000', gateway_value: '15001' }]);
  });
});

/**
 * Runs `work` while another transaction holds the withdrawals table in ACCESS EXCLUSIVE mode:
 * 'finished' if it finished without asking for the table, 'waited' if it queued for it (the
 * table is released then, so the work finishes too).
 */
async function whileWithdrawalsLocked(
  work: () => Promise<unknown>,
): Promise<'finished' | 'waited'> {
  // The test database's own pool (five connections): one holds the table, one watches, one
  // runs the batch.
  const { sql: pool } = batched.database;
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked: () => void = () => {};
  const holding = new Promise<void>((resolve) => (locked = resolve));
  const held = pool.begin(async (tx) => {
    await tx`lock table withdrawals in access exclusive mode`;
    locked();
    await released;
  });
  try {
    await Promise.race([holding, held]);
    let done = false;
    const finished = work().then(() => {
      done = true;
      return 'finished' as const;
    });
    const waited = (async () => {
      while (!done) {
        const [waiter] = await pool`
          select 1 from pg_locks l join pg_class c on c.oid = l.relation
           where c.relname = 'withdrawals' and not l.granted
             and l.database = (select oid from pg_database where datname = current_database())`;
        if (waiter) return 'waited' as const;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return 'finished' as const;
    })();
    const outcome = await Promise.race([finished, waited]);
    release();
    await finished;
    return outcome;
  } finally {
    release();
    await held;
  }
}

function deps(db: TestDatabase): ProcessDeps {
  const now = new Date('2026-11-21T00:00:00.000Z');
  return { sql: db.database.sql, gateway: null, policy: DEFAULT_WATCH_POLICY, now: () => now };
}

async function reset(db: TestDatabase): Promise<void> {
  await db.database.sql`truncate sales, sale_items, withdrawals, status_history,
    reconciliation_discrepancies, inbox_events restart identity cascade`;
}

async function storeAll(db: TestDatabase, sequence: readonly Delivery[]): Promise<number[]> {
  const ids: number[] = [];
  for (const [index, { channel, payload }] of sequence.entries()) {
    const raw = Buffer.from(JSON.stringify(payload));
    const known = typeof payload.id === 'number';
    // As the ingress sets them: the cross-channel check looks rows up by these.
    const resourceType = known ? (payload.type === 'WITHDRAWAL' ? 'withdrawal' : 'sale') : null;
    const [row] = await db.database.sql<{ id: number }[]>`
      insert into inbox_events (channel, resource_type, resource_id, notified_status, event_key,
                                raw_body, payload, body_sha256, headers, state, received_at)
      values (${channel}, ${resourceType}, ${known ? (payload.id as number) : null},
              ${known ? (payload.status as string) : null}, ${`test:${index}`}, ${raw},
              ${JSON.stringify(payload)}::jsonb, ${createHash('sha256').update(raw).digest('hex')},
              '{}', 'pending', '2026-11-20T12:00:00.000Z')
      returning id`;
    if (row) ids.push(row.id);
  }
  return ids.sort((a, b) => a - b);
}

/** Everything the worker writes, without the columns that hold the wall clock. */
async function snapshot(db: TestDatabase): Promise<Record<string, unknown>> {
  const query = (text: string) => db.database.sql.unsafe(text);
  const [sales, items, withdrawals, history, inbox, discrepancies] = await Promise.all([
    query(`select id, status, payment_method, amount_cents, fee_cents, customer_name,
                  customer_email, customer_document, customer_phone, pix_code, boleto_code,
                  external_transaction_id, shipping, created_at, next_reconcile_at,
                  reconcile_requested_at is not null as reconcile_requested, reconcile_reason
             from sales order by id`),
    query(`select * from sale_items order by sale_id, item_id`),
    query(`select id, status, amount_cents, pix_key, pix_key_type, external_id, created_at,
                  gateway_updated_at, processed_at, next_reconcile_at
             from withdrawals order by id`),
    query(`select resource_type, resource_id, from_status, to_status, source, inbox_event_id
             from status_history order by inbox_event_id`),
    query(`select id, state, outcome, quarantine_reason, last_error, attempts,
                  processed_at is not null as processed
             from inbox_events order by id`),
    query(`select resource_type, resource_id, field, mirror_value, gateway_value, action,
                  source, inbox_event_id
             from reconciliation_discrepancies order by inbox_event_id`),
  ]);
  return { sales, items, withdrawals, history, inbox, discrepancies };
}
