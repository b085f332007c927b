import { Socket } from 'node:net';
import type { TransactionSql } from 'postgres';
import { describe, expect, it, vi } from 'vitest';
import { connectPostgres } from '../../src/db/connect.js';
import { useTestDatabase } from '../support/services.js';

// patches/postgres+3.4.9.patch: statements pipelined in one turn of the event loop leave in
// one socket write, however big their parameters (upstream wrote each one of 1 KiB or more on
// its own: one loopback TCP send per statement of the worker's batches).
describe('postgres.js writes', () => {
  const test = useTestDatabase();

  it('sends the statements of one turn in one write, and each gets its own answer', async () => {
    const sql = connectPostgres(test().url, { max: 1 });
    const document = (n: number) => JSON.stringify({ n, text: 'x'.repeat(2_000) });
    const statements = (tx: TransactionSql<Record<string, unknown>>) =>
      [1, 2, 3, 4].map((n) => tx`select ${n}::int as n, length(${document(n)}::text) as size`);
    try {
      // Prepared first: a new statement's Describe waits for its answer before the Bind.
      await sql.begin((tx) => Promise.all(statements(tx)));
      const write = vi.spyOn(Socket.prototype, 'write');
      let answers: unknown[] = [];
      try {
        await sql.begin(async (tx) => {
          write.mockClear();
          answers = await Promise.all(statements(tx));
          expect(write).toHaveBeenCalledTimes(1);
        });
      } finally {
        write.mockRestore();
      }
      expect(answers).toEqual([1, 2, 3, 4].map((n) => [{ n, size: document(n).length }]));
    } finally {
      await sql.end();
    }
  });
});
