import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, transaction, type Database } from '../../src/db/client.js';
import { withTimeout } from '../../src/lib/withTimeout.js';
import { pgbouncerBinary, startPgBouncer, type TestPgBouncer } from '../support/pgbouncer.js';
import { useTestDatabase } from '../support/services.js';

// Postgres behind PgBouncer in transaction mode, as docs/fleet.md sets it up (?prepare=false).
// PgBouncer hands a server back when a statement outside a transaction ends: one pipelined
// behind it on the same connection never got its answer, and the connection hung for good
// (https://github.com/pgbouncer/pgbouncer/issues/759). CI installs PgBouncer; elsewhere the file
// runs where it is installed.
const installed = (() => {
  try {
    pgbouncerBinary();
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!installed && !process.env.CI)('Postgres behind PgBouncer', () => {
  const test = useTestDatabase();
  let pgbouncer: TestPgBouncer;
  let database: Database;

  beforeAll(async () => {
    pgbouncer = await startPgBouncer(inject('databaseUrl'));
    // One connection: every statement sent while another runs would be pipelined behind it.
    database = createDatabase(pgbouncer.through(test().url), { max: 1 });
  });
  afterAll(async () => {
    await database?.close();
    await pgbouncer?.stop();
  });

  it('answers a statement sent while another one runs on the same connection', async () => {
    const sql = database.sql;
    for (let round = 0; round < 40; round++) {
      const [, [row]] = await withTimeout(
        Promise.all([sql`select pg_sleep(0.05)`, sql<{ n: number }[]>`select ${round}::int as n`]),
        5000,
      );
      expect(row?.n).toBe(round);
    }
  });

  it('runs transactions, two statements awaited at once', async () => {
    const sums = await withTimeout(
      transaction(database.sql, async (tx) => {
        const [a, b] = await Promise.all([
          tx<{ n: number }[]>`select ${20}::int + 1 as n`,
          tx<{ n: number }[]>`select 21 as n`,
        ]);
        return [a[0]?.n, b[0]?.n];
      }),
      5000,
    );
    expect(sums).toEqual([21, 21]);
  });
});
