import { describe, expect, it } from 'vitest';
import {
  allowGenericPlans,
  createDatabase,
  forceCustomPlans,
  transaction,
  type Database,
} from '../../src/db/client.js';
import { useTestDatabase } from '../support/services.js';

/** The statements this connection has prepared, read inside one transaction (one connection). */
async function preparedAfterQuery(database: Database): Promise<string[]> {
  return transaction(database.sql, async (tx) => {
    await tx`select ${41}::int + 1 as prepared_probe`;
    const rows = await tx<{ statement: string }[]>`select statement from pg_prepared_statements`;
    return rows.map((row) => row.statement);
  });
}

describe('statements on the client', () => {
  const test = useTestDatabase();

  it('are prepared: one round trip each instead of a Describe first', async () => {
    const prepared = await preparedAfterQuery(test().database);
    expect(prepared.some((text) => text.includes('prepared_probe'))).toBe(true);
  });

  it('are not prepared when DATABASE_URL says ?prepare=false (PgBouncer before 1.21)', async () => {
    const unprepared = createDatabase(`${test().url}?prepare=false`, { max: 1 });
    try {
      const prepared = await preparedAfterQuery(unprepared);
      expect(prepared.some((text) => text.includes('prepared_probe'))).toBe(false);
    } finally {
      await unprepared.close();
    }
  });

  it('after forceCustomPlans are planned for their own values, until allowGenericPlans', async () => {
    const mode = (tx: Parameters<Parameters<typeof transaction>[1]>[0]) =>
      tx<{ mode: string }[]>`select current_setting('plan_cache_mode') as mode`.execute();
    const modes = await transaction(test().database.sql, async (tx) => {
      const before = mode(tx);
      void forceCustomPlans(tx);
      const forced = mode(tx);
      void allowGenericPlans(tx);
      const allowed = mode(tx);
      return (await Promise.all([before, forced, allowed])).map(([row]) => row?.mode);
    });
    expect(modes).toEqual(['auto', 'force_custom_plan', 'auto']);
    const [after] = await test().database.sql<{ mode: string }[]>`
      select current_setting('plan_cache_mode') as mode`;
    expect(after?.mode).toBe('auto');
  });
});
