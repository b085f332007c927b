import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { RowReader } from '../../src/db/rowReader.js';
import { inboxEvents, sales, withdrawals } from '../../src/db/schema.js';
import { useTestDatabase } from '../support/services.js';

/** The worker's locking reads skip drizzle's select builder: they must read what it reads. */
describe('rows read by hand-written statements', () => {
  const test = useTestDatabase();

  it('decode every column as drizzle’s select does, nulls, dates, bigints and json included', async () => {
    const { db } = test().database;
    await db.insert(sales).values([
      {
        id: 9_007_199_254_740_000,
        status: 'PAGO',
        paymentMethod: 'PIX',
        amountCents: 123_456_789_012,
        feeCents: 0,
        customerName: 'Zé',
        shipping: { street: 'Rua A', fee: 2_490, tags: ['a', null] },
        createdAt: new Date('2026-11-20T13:45:12.345Z'),
      },
      { id: 2, status: 'PENDENTE', paymentMethod: 'BOLETO', amountCents: 1 },
    ]);
    await db.insert(withdrawals).values({ id: 5, status: 'PENDING', amountCents: 10 });
    await db.insert(inboxEvents).values({
      channel: 'postback',
      eventKey: 'sale:2:PENDENTE',
      rawBody: Buffer.from('{}'),
      payload: { id: 2, nested: { ok: true } },
      bodySha256: '',
      headers: {},
      state: 'pending',
    });

    for (const table of [sales, withdrawals] as const) {
      const reader = RowReader.of(table);
      const raw = await db.execute<Record<string, unknown>>(
        sql`select ${reader.columns} from ${table} order by id`,
      );
      expect(raw.map((row) => reader.decode(row))).toEqual(
        await db.select().from(table).orderBy(table.id),
      );
    }
    const fields = {
      id: inboxEvents.id,
      payload: inboxEvents.payload,
      receivedAt: inboxEvents.receivedAt,
      resourceId: inboxEvents.resourceId,
    };
    const reader = new RowReader(fields);
    const [raw] = await db.execute<Record<string, unknown>>(
      sql`select ${reader.columns} from inbox_events`,
    );
    const [expected] = await db
      .select(fields)
      .from(inboxEvents)
      .where(eq(inboxEvents.eventKey, 'sale:2:PENDENTE'));
    expect(raw && reader.decode(raw)).toEqual(expected);
    expect(expected?.receivedAt).toBeInstanceOf(Date);
  });
});
