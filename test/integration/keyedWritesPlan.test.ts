import { describe, expect, it } from 'vitest';
import {
  createDatabase,
  forceCustomPlans,
  transaction,
  type Database,
  type Sql,
  type Tx,
} from '../../src/db/client.js';
import { updateRowsById } from '../../src/db/jsonRows.js';
import { sales } from '../../src/db/schema.js';
import { finishInboxRows, recordsNamedBy, releaseDedupeKeys } from '../../src/inbox/sql/worker.js';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import type { GatewayTransaction } from '../../src/gateway/types.js';
import { writeMirror } from '../../src/mirror/applyToMirror.js';
import { withdrawalRows } from '../../src/mirror/mirrorRows.js';
import { useTestDatabase, type TestDatabase } from '../support/services.js';

type Table = 'inbox_events' | 'sales' | 'withdrawals' | 'inbox_dedupe_keys';

/** Sequential scans of a table so far, the writing connection's counts flushed first. */
async function seqScans(writer: Database, observer: Database, table: Table): Promise<number> {
  await writer.sql`select pg_stat_force_next_flush()`;
  const [row] = await observer.sql<{ seq_scan: string }[]>`
    select seq_scan from pg_stat_user_tables where relname = ${table}`;
  return Number(row?.seq_scan);
}

const GROWN_BY = 20_000;

/** A transaction as the mirror writer runs these statements: planned for their values. */
function asTheWriter<T>(sql: Sql, work: (tx: Tx) => Promise<T>): Promise<T> {
  return transaction(sql, async (tx) => {
    void forceCustomPlans(tx);
    return work(tx);
  });
}

interface Rows {
  /** What the table holds while the statement's plan is made. */
  readonly seed: (observer: Database) => PromiseLike<unknown>;
  /** What it gains before the last run. */
  readonly grow: (observer: Database) => PromiseLike<unknown>;
}

/** 20 rows first, then GROWN_BY more, from an insert of `count` rows numbered from `from`. */
function twentyThenGrown(
  insert: (observer: Database, from: number, count: number) => PromiseLike<unknown>,
): Rows {
  return {
    seed: (observer) => insert(observer, 1, 20),
    grow: (observer) => insert(observer, 21, GROWN_BY),
  };
}

/**
 * Runs `write` past the point where Postgres keeps a generic plan, grows the table, runs it once
 * more: the sequential scans of the table before and after that last run.
 */
async function afterGrowth(
  test: TestDatabase,
  table: Table,
  { seed, grow }: Rows,
  write: (writer: Database) => Promise<void>,
  statistics: 'small' | 'never taken' = 'small',
): Promise<{ before: number; after: number }> {
  const { url, database: observer } = test;
  // One connection: the one whose prepared statement would keep the early plan.
  const writer = createDatabase(url, { max: 1 });
  try {
    await observer.sql.unsafe(`alter table ${table} set (autovacuum_enabled = false)`);
    await seed(observer);
    // Statistics of a small table, as autovacuum takes them in a new deployment's first minute;
    // or none yet, as in its first seconds.
    if (statistics === 'small') await observer.sql.unsafe(`analyze ${table}`);
    // Past the five runs after which Postgres may keep a generic plan for a statement.
    for (let run = 0; run < 8; run += 1) await write(writer);
    await grow(observer);
    const before = await seqScans(writer, observer, table);
    await write(writer);
    return { before, after: await seqScans(writer, observer, table) };
  } finally {
    await writer.close();
  }
}

/**
 * The worker's multi-row writes join their rows from a JSON document. Postgres guesses 100 rows
 * for it; on a table as small as a new deployment's, a hash join over a sequential scan is the
 * cheaper plan, and the prepared statement kept it while the table grew: in the bench's e2e run
 * the inbox update read every page of inbox_events for each batch (4.8 ms a batch at 11,000 rows,
 * half of Postgres's time).
 */
describe('the worker’s keyed writes', () => {
  const test = useTestDatabase();

  const insertInbox = (observer: Database, from: number, count: number) => observer.sql`
    insert into inbox_events (id, channel, resource_type, resource_id, event_key, raw_body,
                              payload, body_sha256, headers, state)
    select n, 'postback', 'sale', n, 'sale:' || n || ':PAGO', '\\x7b7d', '{}', '', '{}', 'pending'
      from generate_series(${from}::bigint, ${from + count - 1}::bigint) as n`;

  it('record inbox outcomes by the primary key after inbox_events grew', async () => {
    const { before, after } = await afterGrowth(
      test(),
      'inbox_events',
      twentyThenGrown(insertInbox),
      (writer) =>
        asTheWriter(writer.sql, (tx) =>
          finishInboxRows(tx, [
            { id: 3, state: 'processed', outcome: 'applied', reason: null },
            { id: 4, state: 'quarantined', outcome: 'unparseable', reason: 'bad' },
          ]),
        ),
    );
    expect(after).toBe(before);
    const rows = await test().database.sql<{ id: string; state: string; attempts: number }[]>`
      select id, state, attempts from inbox_events where id in (3, 4, 5) order by id`;
    expect(rows.map((row) => [Number(row.id), row.state, row.attempts])).toEqual([
      [3, 'processed', 9],
      [4, 'quarantined', 9],
      [5, 'pending', 0],
    ]);
  });

  it('update mirror rows by the primary key after sales grew', async () => {
    const insertSales = (observer: Database, from: number, count: number) => observer.sql`
      insert into sales (id, status, payment_method, amount_cents)
      select n, 'PENDENTE', 'PIX', 100 from generate_series(${from}::bigint, ${from + count - 1}::bigint) as n`;
    const { before, after } = await afterGrowth(
      test(),
      'sales',
      twentyThenGrown(insertSales),
      (writer) =>
        asTheWriter(writer.sql, (tx) =>
          updateRowsById(tx, sales, [
            { id: 7, status: 'PAGO' },
            { id: 8, customerName: 'Ana' },
          ]),
        ),
    );
    expect(after).toBe(before);
    const rows = await test().database.sql<{ id: string; status: string; name: string | null }[]>`
      select id, status, customer_name as name from sales where id in (7, 8, 9) order by id`;
    expect(rows.map((row) => [Number(row.id), row.status, row.name])).toEqual([
      [7, 'PAGO', null],
      [8, 'PENDENTE', 'Ana'],
      [9, 'PENDENTE', null],
    ]);
  });

  it('give dedupe keys back by the primary key after inbox_dedupe_keys grew', async () => {
    const insertKeys = (observer: Database, from: number, count: number) => observer.sql`
      insert into inbox_dedupe_keys (channel, event_key, inbox_event_id, first_received_at)
      select 'webhook', 'sale:' || n || ':PAGO', n, now()
        from generate_series(${from}::bigint, ${from + count - 1}::bigint) as n`;
    let run = 0;
    const { before, after } = await afterGrowth(
      test(),
      'inbox_dedupe_keys',
      twentyThenGrown(insertKeys),
      async (writer) => {
        run += 1;
        await asTheWriter(writer.sql, (tx) =>
          releaseDedupeKeys(tx, [
            { inboxEventId: run, channel: 'webhook', eventKey: `sale:${run}:PAGO` },
            // Another delivery took this key since: it stays.
            { inboxEventId: 999_999, channel: 'webhook', eventKey: 'sale:15:PAGO' },
          ]),
        );
      },
    );
    expect(after).toBe(before);
    const left = await test().database.sql<{ event_key: string }[]>`
      select event_key from inbox_dedupe_keys where inbox_event_id <= 15 order by inbox_event_id`;
    expect(left.map((row) => row.event_key)).toEqual(
      Array.from({ length: 6 }, (_, i) => `sale:${10 + i}:PAGO`),
    );
  });

  it('write text holding the quote’s own tags as sent', async () => {
    const { database } = test();
    await insertInbox(database, 900_000, 1);
    const reason = "$j$'); drop table sales; -- $j0$ \\ ' \" \u00e9";
    await asTheWriter(database.sql, (tx) =>
      finishInboxRows(tx, [{ id: 900_000, state: 'quarantined', outcome: 'unparseable', reason }]),
    );
    const [row] = await database.sql<{ quarantine_reason: string }[]>`
      select quarantine_reason from inbox_events where id = 900000`;
    expect(row?.quarantine_reason).toBe(reason);
    const [sales] = await database.sql<{ kept: boolean }[]>`
      select to_regclass('sales') is not null as kept`;
    expect(sales?.kept).toBe(true);
  });
});

/**
 * The mirror writer itself, in a database of its own (sales as small as a new deployment's):
 * its statements are planned for their values, whoever calls it.
 */
describe('the mirror writer', () => {
  const test = useTestDatabase();

  it('lock and update records by the primary key after sales grew', async () => {
    const insertSales = (observer: Database, from: number, count: number) => observer.sql`
      insert into sales (id, status, payment_method, amount_cents, created_at)
      select n, 'PENDENTE', 'PIX', 100, now()
        from generate_series(${from}::bigint, ${from + count - 1}::bigint) as n`;
    let run = 0;
    const { before, after } = await afterGrowth(
      test(),
      'sales',
      {
        seed: (observer) => insertSales(observer, 100_001, 20),
        grow: (observer) => insertSales(observer, 100_021, GROWN_BY),
      },
      async (writer) => {
        run += 1;
        // Gateway reads that change a field: the records are locked and updated.
        await writeMirror(
          writer.sql,
          [100_007, 100_008, 100_009].map((id) => ({
            kind: 'read' as const,
            resource: 'sale' as const,
            record: saleRead(id, `Cliente ${run}`),
            readAt: new Date(),
            context: { source: 'reconcile' as const, inboxEventId: null },
            purpose: 'reconcile' as const,
            runId: null,
          })),
          { now: new Date(), policy: DEFAULT_WATCH_POLICY },
        );
      },
    );
    expect(after).toBe(before);
    const [row] = await test().database.sql<{ name: string }[]>`
      select customer_name as name from sales where id = 100007`;
    expect(row?.name).toBe(`Cliente ${run}`);
  });
});

/**
 * The records' locking reads, in a database of their own: every table as a new deployment has
 * them, none analyzed yet (once inbox_events has grown and been analyzed, as in the tests above,
 * even the prepared plan comes out right).
 */
describe('the worker’s locking reads', () => {
  const test = useTestDatabase();

  it('lock the records inbox rows name, and others by id, by the primary key after their table grew', async () => {
    let locked: number[] = [];
    const { before, after } = await afterGrowth(
      test(),
      'withdrawals',
      {
        seed: (observer) => observer.sql`
          insert into inbox_events (id, channel, resource_type, resource_id, event_key, raw_body,
                                    payload, body_sha256, headers, state)
          values (700001, 'webhook', 'withdrawal', 5, 'withdrawal:5:PENDING:x', '\\x7b7d', '{}',
                  '', '{}', 'pending')`,
        // None yet: a new deployment's first batches find none of their records.
        grow: (observer) => observer.sql`
          insert into withdrawals (id, status, amount_cents)
          select n, 'PENDING', 100 from generate_series(1, ${GROWN_BY}::bigint) as n`,
      },
      async (writer) => {
        const rows = withdrawalRows();
        await asTheWriter(writer.sql, async (tx) => {
          await rows.lockWhere(tx, recordsNamedBy(tx, 'withdrawal', [700001]));
          await rows.lock(tx, [9, 5]);
        });
        locked = [5, 9, 10].filter((id) => rows.get(id) !== undefined);
      },
      'never taken',
    );
    expect(after).toBe(before);
    expect(locked).toEqual([5, 9]);
  });
});

function saleRead(id: number, customerName: string): GatewayTransaction {
  return {
    id,
    status: 'PENDENTE',
    paymentMethod: 'PIX',
    amountCents: 100 as GatewayTransaction['amountCents'],
    netAmountCents: null,
    systemFeeCents: null,
    reserveAmountCents: null,
    createdAt: new Date(),
    completedAt: null,
    customerName,
    customerEmail: null,
    customerDocument: null,
    customerPhone: null,
    items: [],
    pixCode: null,
    cardLastFour: null,
    cardBrand: null,
    boletoCode: null,
    externalTransactionId: null,
    installments: null,
    shipping: null,
  };
}
