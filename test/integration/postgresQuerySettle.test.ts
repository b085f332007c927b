import { describe, expect, it } from 'vitest';
import { connectPostgres } from '../../src/db/connect.js';
import { useTestDatabase } from '../support/services.js';

// patches/postgres+3.4.9.patch: a query settles through its class's resolve and reject, not
// through two arrow functions made for each query, which kept every query's objects alive
// across V8's young collections (bench/PERFORMANCE.md, session 18). The settling must be
// unchanged: the answer or the error reaches the caller, and the query is no longer active.
describe('postgres.js queries settle through their class methods', () => {
  const test = useTestDatabase();

  it('resolves with the rows and rejects with the error, leaving the query inactive', async () => {
    const sql = connectPostgres(test().url, { max: 1, onnotice: () => {} });
    try {
      const answered = sql.unsafe('select 1 as n');
      const failed = sql.unsafe('select 1 / 0');
      const caught = failed.catch((error: unknown) => error);
      expect(await answered).toEqual([{ n: 1 }]);
      expect(await caught).toMatchObject({ code: '22012' });
      for (const query of [answered, failed]) {
        expect(Object.hasOwn(query, 'resolve') || Object.hasOwn(query, 'reject')).toBe(false);
        expect((query as unknown as { active: boolean }).active).toBe(false);
      }
      // An iterated cursor still puts its own resolve on its query, and ends.
      const batches: unknown[] = [];
      for await (const rows of sql.unsafe('select generate_series(1, 3) as n').cursor(2)) {
        batches.push(rows.map((row) => row.n));
      }
      expect(batches).toEqual([[1, 2], [3]]);
    } finally {
      await sql.end();
    }
  });
});
