import { describe, expect, it } from 'vitest';
import { transaction, type Sql, type Tx } from '../../src/db/client.js';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import { applyToMirror } from '../../src/mirror/applyToMirror.js';
import type { MirrorInput } from '../../src/mirror/inputs.js';
import { MirrorInsertRaceError, retryingInsertRaces } from '../../src/mirror/mirrorRows.js';
import { parseNotification } from '../../src/notifications/parseNotification.js';
import { postbackBody } from '../support/fixtures.js';
import { useTestDatabase } from '../support/services.js';

const SALE = 6101;
const SALE_WITH_ITEMS = 6102;
const TWICE = 6103;

function signed(status: string, id = SALE): MirrorInput {
  const parsed = parseNotification('postback', postbackBody({ id, status }));
  if (!parsed.ok || parsed.notice.kind !== 'sale') throw new Error('fixture did not parse');
  return {
    kind: 'notice',
    notice: parsed.notice,
    provenance: 'signed',
    observedAt: new Date(),
    context: { source: 'postback', inboxEventId: null },
    ambiguity: 'reconcile',
  };
}

type Database = ReturnType<ReturnType<typeof useTestDatabase>>['database'];

/**
 * Applies a signed PAGO for a sale the mirror does not have while another transaction (on
 * another connection) has written `meanwhile` without committing: the lock does not see it, the
 * insert waits on it, and it commits then. `alongside` is sent with the first attempt's writes.
 * Each attempt's outcome, in order.
 */
async function writeRacing(
  database: Database,
  id: number,
  meanwhile: (other: Sql) => Promise<unknown>,
  alongside: (tx: Tx) => Promise<unknown> = () => Promise.resolve(),
): Promise<unknown[]> {
  const watch = { now: new Date(), policy: DEFAULT_WATCH_POLICY };
  const attempts: unknown[] = [];
  const other = await database.sql.reserve();
  try {
    await other`begin`;
    await meanwhile(other);
    const written = retryingInsertRaces(() =>
      transaction(database.sql, async (tx) => {
        const first = attempts.length === 0;
        try {
          await applyToMirror(tx, [signed('PAGO', id)], watch, {
            alongside: () => (first ? alongside(tx) : Promise.resolve()),
          });
          attempts.push('written');
        } catch (error) {
          attempts.push(error);
          throw error;
        }
      }),
    );
    await waitForLockWait(database.sql);
    await other`commit`;
    await written;
  } finally {
    other.release();
  }
  return attempts;
}

/** Until a statement of this database waits for a lock (the insert, on the other's row). */
async function waitForLockWait(sql: Sql): Promise<void> {
  for (;;) {
    const [row] = await sql<{ waiting: number }[]>`
      select count(*)::int as waiting from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock'`;
    if ((row?.waiting ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Two workers can both find no row for a new sale and both insert it: the second insert
 * does nothing, and its transaction must not go on as if it had written the sale.
 */
describe('a sale another transaction creates between the lock and the insert', () => {
  const test = useTestDatabase();

  it('fails the attempt, what was sent with the insert rolled back, and the next attempt applies the notice to that row', async () => {
    const { database } = test();
    const attempts = await writeRacing(database, SALE, async (other) => {
      // Another transaction (another connection) creates the sale meanwhile.
      await other`
        insert into sales (id, status, payment_method, amount_cents)
        values (${SALE}, 'PENDENTE', 'PIX', 15000)`;
    });

    expect(attempts[0]).toBeInstanceOf(MirrorInsertRaceError);
    expect(attempts.slice(1)).toEqual(['written']);
    const [sale] = await database.sql<{ status: string }[]>`
      select status from sales where id = ${SALE}`;
    expect(sale?.status).toBe('PAGO');
    const history = await database.sql<{ id: string; from_status: string | null }[]>`
      select id, from_status, to_status from status_history where resource_id = ${SALE}`;
    // The first attempt's entry (null → PAGO) is gone: only the move from the row it found.
    expect(history.map(({ from_status }) => from_status)).toEqual(['PENDENTE']);
    // The first attempt's history insert went out with the sale's insert, in the same round
    // trip, before the race was known: it drew the sequence's first id, then rolled back.
    expect(Number(history[0]?.id)).toBeGreaterThan(1);
    const items = await database.sql`select item_id from sale_items where sale_id = ${SALE}`;
    expect(items).toHaveLength(1);
  });

  it("reports the race, not the collision of the new sale's items with the items the other transaction wrote", async () => {
    const { database } = test();
    const attempts = await writeRacing(
      database,
      SALE_WITH_ITEMS,
      async (other) => {
        await other`
          insert into sales (id, status, payment_method, amount_cents)
          values (${SALE_WITH_ITEMS}, 'PENDENTE', 'PIX', 15000)`;
        await other`
          insert into sale_items (sale_id, item_id, title, unit_price_cents, quantity, tangible)
          values (${SALE_WITH_ITEMS}, 1, 'Camiseta', 15000, 1, true)`;
      },
      // What is sent with the writes (the worker sends the inbox rows' outcomes) fails too once
      // the transaction is aborted, and may settle first: the race is still what is reported,
      // for it is what another attempt mends.
      (tx) =>
        Promise.all([
          Promise.reject(new Error('a statement sent alongside, settled first')),
          tx`select 1`.execute(),
        ]),
    );

    expect(attempts[0]).toBeInstanceOf(MirrorInsertRaceError);
    expect(attempts.slice(1)).toEqual(['written']);
    const [sale] = await database.sql<{ status: string }[]>`
      select status from sales where id = ${SALE_WITH_ITEMS}`;
    expect(sale?.status).toBe('PAGO');
  });

  it("writes a new sale's items once when two of its notices in one batch bring them", async () => {
    const { database } = test();
    const watch = { now: new Date(), policy: DEFAULT_WATCH_POLICY };
    await transaction(database.sql, (tx) =>
      applyToMirror(tx, [signed('PENDENTE', TWICE), signed('PAGO', TWICE)], watch),
    );
    const items = await database.sql`select item_id from sale_items where sale_id = ${TWICE}`;
    expect(items).toHaveLength(1);
    const [sale] = await database.sql<{ status: string }[]>`
      select status from sales where id = ${TWICE}`;
    expect(sale?.status).toBe('PAGO');
  });
});
