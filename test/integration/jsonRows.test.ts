import { describe, expect, it } from 'vitest';
import { transaction } from '../../src/db/client.js';
import { insertRows, selectFields, TX_NOW, updateRowsById } from '../../src/db/jsonRows.js';
import type { SaleRow, WithdrawalRow } from '../../src/db/rows.js';
import { sales, withdrawals } from '../../src/db/schema.js';
import { useTestDatabase } from '../support/services.js';

/**
 * The worker's multi-row writes turn each row into a json document themselves (dates
 * included, for speed): what lands in the columns must be what the row said.
 */
describe('multi-row writes', () => {
  const test = useTestDatabase();

  const read = async (id: number) => {
    const sql = test().database.sql;
    const [row] = await sql<WithdrawalRow[]>`
      select ${selectFields(sql, withdrawals)} from withdrawals where id = ${id}`;
    return row;
  };

  it('store dates to the millisecond, an invalid date as null, and now() for TX_NOW', async () => {
    const createdAt = new Date('2026-11-20T13:45:12.345Z');
    const ids = await transaction(test().database.sql, async (tx) => {
      const inserted = await insertRows(
        tx,
        withdrawals,
        [
          {
            id: 1,
            status: 'PENDING',
            amountCents: 12_345,
            createdAt,
            processedAt: new Date(Number.NaN),
            statusObservedAt: TX_NOW,
            pixKey: undefined,
            notAColumn: 'ignored',
          },
          { id: 2, status: 'PENDING', amountCents: 1 },
        ],
        { returningIds: true },
      );
      // The transaction's own clock, as text: the column must hold exactly it.
      const [{ now } = { now: '' }] = await tx<{ now: string }[]>`select now()::text as now`;
      return { inserted, now };
    });
    expect(ids.inserted.sort()).toEqual([1, 2]);
    const first = await read(1);
    expect(first?.createdAt?.toISOString()).toBe('2026-11-20T13:45:12.345Z');
    expect(first?.processedAt).toBeNull();
    expect(first?.pixKey).toBeNull();
    expect(first?.amountCents).toBe(12_345);
    const [{ observed } = { observed: '' }] = await test().database.sql<{ observed: string }[]>`
      select status_observed_at::text as observed from withdrawals where id = 1`;
    expect(observed).toBe(ids.now);
  });

  it('update only the columns each row names, dates included', async () => {
    const processedAt = new Date('2026-11-21T08:00:00.001Z');
    await transaction(test().database.sql, (tx) =>
      updateRowsById(tx, withdrawals, [
        { id: 1, status: 'COMPLETED', processedAt },
        { id: 2, pixKey: 'maria@example.com' },
      ]),
    );
    const first = await read(1);
    const second = await read(2);
    expect(first).toMatchObject({ status: 'COMPLETED', amountCents: 12_345 });
    expect(first?.processedAt?.toISOString()).toBe('2026-11-21T08:00:00.001Z');
    expect(first?.createdAt?.toISOString()).toBe('2026-11-20T13:45:12.345Z');
    expect(second).toMatchObject({ status: 'PENDING', pixKey: 'maria@example.com' });
    expect(second?.processedAt).toBeNull();
  });

  it('clear a column a row names as null, and keep nested documents and escaped text as sent', async () => {
    const shipping = { address: { street: 'Rua "A", 10\\B', zip: '01001-000' }, fee: 1_500 };
    await transaction(test().database.sql, async (tx) => {
      await updateRowsById(tx, withdrawals, [{ id: 2, pixKey: null }]);
      await insertRows(tx, sales, [
        {
          id: 7,
          status: 'PENDING',
          paymentMethod: 'PIX',
          amountCents: 9_900,
          customerName: 'João “Zé” Ñandú 😀',
          shipping,
        },
      ]);
    });
    expect((await read(2))?.pixKey).toBeNull();
    expect((await read(2))?.status).toBe('PENDING');
    const sql = test().database.sql;
    const [sale] = await sql<SaleRow[]>`
      select ${selectFields(sql, sales)} from sales where id = 7`;
    expect(sale?.customerName).toBe('João “Zé” Ñandú 😀');
    expect(sale?.shipping).toEqual(shipping);
  });

  it('write a json column as sent: a json null as SQL NULL, a string as a json string, a row that does not name it as null', async () => {
    await transaction(test().database.sql, (tx) =>
      insertRows(tx, sales, [
        { id: 8, status: 'PENDING', paymentMethod: 'PIX', amountCents: 1, shipping: null },
        { id: 9, status: 'PENDING', paymentMethod: 'PIX', amountCents: 1, shipping: 'Rua B, 2' },
        { id: 10, status: 'PENDING', paymentMethod: 'PIX', amountCents: 1 },
        { id: 11, status: 'PENDING', paymentMethod: 'PIX', amountCents: 1, shipping: [1, 'x'] },
      ]),
    );
    const rows = await test().database.sql<{ id: string; shipping: string | null }[]>`
      select id, shipping::text as shipping from sales where id between 8 and 11 order by id`;
    expect(rows.map((row) => row.shipping)).toEqual([null, '"Rua B, 2"', null, '[1, "x"]']);
  });
});
