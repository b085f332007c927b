import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { executeQuery } from '../../src/db/driverQuery.js';
import { useTestDatabase } from '../support/services.js';

/** The worker's statements skip drizzle's builder: they must still run where drizzle's would. */
describe('executeQuery', () => {
  const test = useTestDatabase();
  const probe = sql`select current_setting('paymirror.probe', true) as value, ${'given'}::text as param`;

  it('runs inside the transaction it is given, and on the pool when given the database', async () => {
    const { db } = test().database;
    const inside = await db.transaction(async (tx) => {
      await tx.execute(sql`select set_config('paymirror.probe', 'this transaction', true)`);
      return {
        tx: await executeQuery<{ value: string | null; param: string }>(tx, probe),
        pool: await executeQuery<{ value: string | null }>(db, probe),
      };
    });
    expect(inside.tx).toEqual([{ value: 'this transaction', param: 'given' }]);
    expect(inside.pool[0]?.value ?? '').toBe('');
  });

  it('rolls back with the transaction', async () => {
    const { db } = test().database;
    await db.execute(sql`create table probe_rows (id bigint primary key)`);
    await expect(
      db.transaction(async (tx) => {
        await executeQuery(tx, sql`insert into probe_rows values (${1})`);
        throw new Error('abandon');
      }),
    ).rejects.toThrow('abandon');
    expect(await executeQuery(db, sql`select id from probe_rows`)).toEqual([]);
  });
});
