import { beforeAll, describe, expect, it } from 'vitest';
import { recordsNamedBy } from '../../src/inbox/sql/worker.js';
import { useTestDatabase } from '../support/services.js';

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Index Name'?: string;
  readonly Plans?: readonly PlanNode[];
}

function indexesUsed(node: PlanNode): string[] {
  return [
    ...(node['Index Name'] ? [node['Index Name']] : []),
    ...(node.Plans ?? []).flatMap(indexesUsed),
  ];
}

/**
 * The worker's first round trip names a batch's records by its inbox rows' resource ids.
 * Statistics are stale whenever a backlog was stored since the last ANALYZE (a new database,
 * a burst): the lookup must still go by the rows' ids alone, not through every sale's entry
 * in the resource index.
 */
describe('the records inbox rows name', () => {
  const test = useTestDatabase();
  const batch = Array.from({ length: 64 }, (_, i) => 5_000 + i);

  beforeAll(async () => {
    await test().database.sql.unsafe(`
      alter table inbox_events set (autovacuum_enabled = false);
      -- Rows of a real postback's size (about 1.5 KB of body, stored twice).
      insert into inbox_events (channel, resource_type, resource_id, event_key, raw_body,
                                payload, body_sha256, headers, state)
      select 'postback', 'sale', n, 'sale:' || n || ':PAGO', convert_to(body, 'UTF8'),
             jsonb_build_object('body', body), '', '{}', 'pending'
        from generate_series(1, 10000) as n,
             lateral (select string_agg(md5((n * 100 + k)::text), '') as body
                        from generate_series(1, 24) as k) as filler;`);
  });

  it('are found by the inbox rows ids alone, with statistics taken before the backlog', async () => {
    const sql = test().database.sql;
    const [row] = await sql<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>`
      explain (format json) select ${recordsNamedBy(sql, 'sale', batch)} as named`;
    const plan = row?.['QUERY PLAN'][0].Plan;
    expect(plan).toBeDefined();
    expect(indexesUsed(plan as PlanNode)).toEqual(['inbox_events_pkey']);
    // (Offered the resource type beside the ids, the planner ANDed them with all 10,000 sales'
    // entries of inbox_events_resource_idx.)
  });

  it('name exactly the records of the kind asked for', async () => {
    const sql = test().database.sql;
    const [row] = await sql<{ named: string[] }[]>`
      select ${recordsNamedBy(sql, 'sale', batch)} as named`;
    expect(row?.named.map(Number).sort((a, b) => a - b)).toEqual(batch);
    const [none] = await sql<{ named: string[] }[]>`
      select ${recordsNamedBy(sql, 'withdrawal', batch)} as named`;
    expect(none?.named).toEqual([]);
  });
});
