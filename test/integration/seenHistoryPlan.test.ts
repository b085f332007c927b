import { describe, expect, it } from 'vitest';
import {
  createDatabase,
  forceCustomPlans,
  transaction,
  type Database,
} from '../../src/db/client.js';
import { MirrorWrites } from '../../src/mirror/mirrorWrites.js';
import { useTestDatabase } from '../support/services.js';

/** Sequential scans of status_history so far, the reading connection's counts flushed first. */
async function historySeqScans(reader: Database, observer: Database): Promise<number> {
  await reader.sql`select pg_stat_force_next_flush()`;
  const [row] = await observer.sql<{ seq_scan: string }[]>`
    select seq_scan from pg_stat_user_tables where relname = 'status_history'`;
  return Number(row?.seq_scan);
}

/**
 * Each batch reads which statuses its records already have in status_history. The table
 * starts empty and grows with every notification, faster than autovacuum analyzes it: a plan
 * Postgres kept from the first batches scanned the whole table for every later batch.
 */
describe('the history statuses a batch reads', () => {
  const test = useTestDatabase();
  const ids = Array.from({ length: 100 }, (_, i) => 1_000 + i);

  it('are looked up by index once the table has grown, however small it was at first', async () => {
    const { url, database: observer } = test();
    // One connection: the one whose prepared statements would keep the early plan.
    const reader = createDatabase(url, { max: 1 });
    try {
      await observer.sql`alter table status_history set (autovacuum_enabled = false)`;
      // Statistics that say empty, as after any ANALYZE of a new database.
      await observer.sql`analyze status_history`;
      const read = (writes: MirrorWrites) =>
        transaction(reader.sql, (tx) => {
          // As the mirror writer reads them: planned for their values.
          void forceCustomPlans(tx);
          return writes.loadSeen(tx, { sale: ids, withdrawal: [] });
        });
      // Past the five runs after which Postgres may keep a generic plan for a statement.
      for (let run = 0; run < 8; run += 1) await read(new MirrorWrites());
      await observer.sql`
        insert into status_history (resource_type, resource_id, to_status, source)
        select 'sale', n, 'PAGO', 'postback' from generate_series(1, 50000) as n`;
      const before = await historySeqScans(reader, observer);

      const writes = new MirrorWrites();
      await read(writes);

      expect(await historySeqScans(reader, observer)).toBe(before);
      expect(ids.every((id) => writes.hasSeen('sale', id, 'PAGO'))).toBe(true);
      expect(writes.hasSeen('sale', 999, 'PAGO')).toBe(false);
    } finally {
      await reader.close();
    }
  });
});
