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

  // The same patch: a Buffer for a bytea parameter goes in binary format, as its own bytes.
  // Upstream sent it as hex text, a string twice its size: a batch of inbox bodies made one past
  // V8's large-object threshold for every statement, kept until a full collection.
  it('sends a bytea parameter as its bytes, beside text and null parameters', async () => {
    const sql = connectPostgres(test().url, { max: 1 });
    const body = Buffer.alloc(256 * 1024);
    for (let at = 0; at < body.length; at += 1) body[at] = (at * 7) % 256;
    const write = vi.spyOn(Socket.prototype, 'write');
    try {
      const [row] = await sql<{ body: Buffer; label: string; nothing: null; size: number }[]>`
        select ${body}::bytea as body, ${'é, ç'}::text as label, ${null}::int as nothing,
               length(${body}::bytea) as size`;
      const sent = write.mock.calls.reduce(
        (bytes, [chunk]) => bytes + Buffer.byteLength(chunk as Buffer | string),
        0,
      );
      // Two copies of the body as bytes, and room for the rest: as hex text, over four.
      expect(sent).toBeGreaterThan(2 * body.length);
      expect(sent).toBeLessThan(2.5 * body.length);
      expect(row?.body.equals(body)).toBe(true);
      expect(row).toMatchObject({ label: 'é, ç', nothing: null, size: body.length });
    } finally {
      write.mockRestore();
      await sql.end();
    }
  });
});
