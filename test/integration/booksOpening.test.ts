import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { checkBooks } from '../../src/books/checkBooks.js';
import { journalFor } from '../../src/books/sql.js';
import { createDatabase, type Database } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { recordBookStates } from '../../src/mirror/sql/bookStates.js';
import { dropTestDatabase, withDatabase } from '../support/services.js';

// Opening the books: a mirror as it stood before the journal existed, migrated.
const name = `pm_test_${randomBytes(6).toString('hex')}`;
const url = withDatabase(inject('databaseUrl'), name);
let database: Database | undefined;

afterAll(async () => {
  await database?.close();
  await dropTestDatabase(name);
});

const t = (hour: number) => new Date(Date.parse('2026-10-01T12:00:00Z') + hour * 3_600_000);

describe('migrating a mirror to the books', () => {
  it('books every record from its history, and the books tie out', async () => {
    await runMigrations(url, { upTo: '0010_denied' });
    database = createDatabase(url, { max: 2 });
    const { sql } = database;
    const sale = (id: number, status: string, method: string, net: number | null, extra = {}) => ({
      id,
      status,
      payment_method: method,
      amount_cents: 10_000,
      net_amount_cents: net,
      status_observed_at: t(id * 10 + 5),
      completed_at: null as Date | null,
      denied_at: null as Date | null,
      ...extra,
    });
    await sql`insert into sales ${sql([
      sale(1, 'ESTORNADO', 'PIX', 9_000, { completed_at: t(2) }),
      sale(2, 'PAGO', 'CREDIT_CARD', null),
      sale(3, 'PAGO', 'CREDIT_CARD', 9_500),
      sale(4, 'PAGO', 'PIX', 9_000, { denied_at: t(90) }),
      sale(5, 'PAGO', 'BOLETO', 9_800),
      sale(6, 'ESTORNADO', 'PIX', 9_000),
    ])}`;
    await sql`insert into withdrawals ${sql([
      { id: 1, status: 'COMPLETED', amount_cents: 15_050, denied_at: null },
      { id: 2, status: 'REJECTED', amount_cents: 20_000, denied_at: null },
      { id: 3, status: 'PROCESSING', amount_cents: 30_000, denied_at: t(95) },
    ])}`;
    const paths: [string, number, string[], boolean?][] = [
      ['sale', 1, ['PENDENTE', 'PAGO', 'MED', 'ESTORNADO']],
      ['sale', 2, ['EM_PROCESSAMENTO', 'PAGO']],
      ['sale', 3, ['PAGO', 'CHARGEBACK', 'PAGO']],
      ['sale', 4, ['PAGO']],
      ['sale', 5, ['PENDENTE']],
      ['sale', 6, ['PAGO', 'ESTORNADO']],
      ['withdrawal', 1, ['PENDING', 'PROCESSING', 'COMPLETED']],
      ['withdrawal', 2, ['PENDING', 'REJECTED']],
      ['withdrawal', 3, ['PROCESSING']],
    ];
    const history = paths.flatMap(([resource, id, statuses]) =>
      statuses.map((status, index) => ({
        resource_type: resource,
        resource_id: id,
        from_status: index === 0 ? null : statuses[index - 1],
        to_status: status,
        source: 'postback',
        observed_at: t(id * 10 + index),
      })),
    );
    // Observed after the mirror had moved past it: part of the story, not of the path.
    history.push({
      resource_type: 'sale',
      resource_id: 6,
      from_status: 'PAGO',
      to_status: 'MED',
      source: 'postback',
      observed_at: t(70),
    });
    await sql`insert into status_history ${sql(history, 'resource_type', 'resource_id', 'from_status', 'to_status', 'source', 'observed_at')}`;
    await sql`update status_history set entered = false where resource_id = 6 and to_status = 'MED'`;

    await runMigrations(url);

    const result = await checkBooks(sql, await recordBookStates(sql));
    expect(result.untied).toEqual([]);
    expect(result.records).toBe(9);
    const story = async (resource: 'sale' | 'withdrawal', id: number) =>
      (await journalFor(sql, resource, id)).map((entry) => [
        entry.kind,
        entry.account,
        entry.amount_cents,
        entry.effective_at.toISOString(),
      ]);
    expect(await story('sale', 1)).toEqual([
      ['payment', 'available', 9_000, t(2).toISOString()],
      ['dispute_opened', 'available', -9_000, t(12).toISOString()],
      ['dispute_opened', 'reserved', 9_000, t(12).toISOString()],
      ['dispute_lost', 'reserved', -9_000, t(13).toISOString()],
    ]);
    expect(await story('sale', 4)).toEqual([
      ['payment', 'available', 9_000, t(40).toISOString()],
      ['denial', 'available', -9_000, t(90).toISOString()],
    ]);
    expect((await story('sale', 5)).map(([kind]) => kind)).toEqual(['fee_adjustment']);
    expect((await story('sale', 6)).map(([kind]) => kind)).toEqual(['payment', 'refund']);
    expect(await story('withdrawal', 2)).toEqual([
      ['withdrawal', 'available', -20_000, t(20).toISOString()],
      ['withdrawal_returned', 'available', 20_000, t(21).toISOString()],
    ]);
    expect((await story('withdrawal', 3)).map(([kind]) => kind)).toEqual(['withdrawal', 'denial']);
  });
});
