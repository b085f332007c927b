import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  POSTBACK_SECRET,
  WEBHOOK_TOKEN,
  postbackBody,
  webhookSaleBody,
} from '../support/fixtures.js';
import { runCli } from '../support/cli.js';
import { startTestPaymirror, waitFor } from '../support/paymirror.js';
import { startRedisTopology, type RedisTopology } from '../support/redisTopology.js';
import { createTestDatabase, type TestDatabase } from '../support/services.js';

// paymirror on a Redis Cluster (3 masters, 3 replicas) and on a Sentinel set (1 master, 1
// replica, 3 sentinels), each started here from redis-server processes.
describe.each(['cluster', 'sentinel'] as const)('on a Redis %s', (kind) => {
  let topology: RedisTopology;
  let db: TestDatabase;
  const prefix = `pmtopo${kind}`;

  beforeAll(async () => {
    [topology, db] = await Promise.all([startRedisTopology(kind), createTestDatabase()]);
  }, 90_000);
  afterAll(async () => {
    await topology?.stop();
    await db?.drop();
  });

  const env = () => ({ ...topology.env, REDIS_URL: '', QUEUE_PREFIX: prefix });

  it('mirrors postbacks and webhooks through every queue (no CROSSSLOT)', async () => {
    const app = await startTestPaymirror({
      db,
      queue: { prefix, redisUrl: '' } as never,
      env: env(),
    });
    try {
      const post = await app.postback(postbackBody({ id: 8801, status: 'PAGO' }));
      const hook = await app.webhook(webhookSaleBody({ id: 8802, status: 'PAGO' }));
      expect([post.status, hook.status]).toEqual([200, 200]);
      await waitFor(async () => {
        const rows = await db.database.sql`
          select id from sales where id in (8801, 8802) and status = 'PAGO'`;
        return rows.length === 2 ? true : undefined;
      });
      const outcomes = await db.database.sql`
        select state, count(*)::int as n from inbox_events group by state`;
      expect(outcomes).toEqual([{ state: 'processed', n: 2 }]);
    } finally {
      await app.close();
    }
  });

  if (kind === 'cluster') {
    it('keeps each queue under its own hash tag', async () => {
      const nodes = topology.env.REDIS_CLUSTER_NODES?.split(',') ?? [];
      const cluster = new Cluster(
        nodes.map((node) => ({ host: '127.0.0.1', port: Number(node.split(':')[1]) })),
      );
      try {
        await cluster.ping();
        const keys = (
          await Promise.all(cluster.nodes('master').map((node) => node.keys('*')))
        ).flat();
        expect(keys.some((key) => key.startsWith(`{${prefix}:notifications}:notifications:`))).toBe(
          true,
        );
        expect(keys.filter((key) => key.startsWith(`${prefix}:`))).toEqual([]);
      } finally {
        cluster.disconnect();
      }
    });
  }

  it('doctor names the topology and checks every node', async () => {
    const run = runCli(['doctor'], {
      DATABASE_URL: db.url,
      ...env(),
      POSTBACK_SECRETS: POSTBACK_SECRET,
      WEBHOOK_TOKENS: WEBHOOK_TOKEN,
      SELLER_USER_ID: '4242',
    });
    await run.exited;
    const output = run.output();
    if (kind === 'cluster') {
      expect(output).toMatch(/cluster of 3 masters and 3 replicas, cluster_state ok/);
      expect(output).toMatch(/maxmemory-policy noeviction on all 6 nodes/);
    } else {
      expect(output).toMatch(/Sentinel master "paymirror" at 127\.0\.0\.1:\d+ with 1 replica/);
      expect(output).toMatch(/maxmemory-policy noeviction on all 2 nodes/);
    }
    // The test servers keep nothing on disk: doctor says so, node by node.
    expect(output).toMatch(
      /redis persistence\s+warn\s+(127\.0\.0\.1:\d+, )+127\.0\.0\.1:\d+: no persistence/,
    );
  });
});
