import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseConfig } from '../../src/config/config.js';
import { createDatabase, type Database } from '../../src/db/client.js';
import { compareSnapshots, type Comparison } from '../../src/demo/compare.js';
import { driveScenario } from '../../src/demo/drive.js';
import { DEMO_FAULTS } from '../../src/demo/options.js';
import { NO_PROGRESS } from '../../src/demo/progress.js';
import { seededRandom } from '../../src/demo/random.js';
import { buildScenario } from '../../src/demo/scenario.js';
import { mirrorSnapshot, truthSnapshot } from '../../src/demo/snapshot.js';
import { buildDelivery } from '../../src/inbox/delivery.js';
import { parseJsonObject } from '../../src/ingress/rawBody.js';
import { createLogger } from '../../src/log/logger.js';
import { closeLaneQueues, createLaneQueues, laneQueueList } from '../../src/queue/lanes.js';
import { gatewayClientFor } from '../../src/runtime/gatewayClient.js';
import { createCommandRedis, queuePrefixFor } from '../../src/runtime/redis.js';
import { createSandbox, generateKeyPair, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from '../support/cli.js';
import { dropTestDatabase, withDatabase } from '../support/services.js';
import { POSTBACK_SECRET, SELLER_USER_ID, WEBHOOK_TOKEN } from '../support/fixtures.js';
import { startFleetProcess, type FleetProcess } from '../support/fleet.js';
import { startForwarder, type Forwarder } from '../support/forwarder.js';
import { waitFor } from '../support/paymirror.js';
import { describeStuckRows } from '../support/stuckRows.js';
import { startPgBouncer, type TestPgBouncer } from '../support/pgbouncer.js';
import {
  startRedisTopology,
  type RedisTopology,
  type TopologyKind,
} from '../support/redisTopology.js';

/**
 * paymirror as a fleet: 2 ingress, 3 worker and 2 scheduler processes on a Redis Cluster (or
 * a Sentinel set) and Postgres behind PgBouncer in transaction mode. The sandbox drives 1,000
 * sales and 50 withdrawals over both channels with its faults on; midway one ingress and one
 * worker are killed -9 and a Redis master fails over. After one reconciliation the mirror must
 * equal the sandbox's truth, with no transition written twice, no accepted delivery lost, and
 * the gateway budget held across every process.
 */
const SALES = 1_000;
const WITHDRAWALS = 50;
const GATEWAY_MAX_RPS = 100;
const SEED = 7;

describe.each<TopologyKind>(['cluster', 'sentinel'])('a fleet on Redis %s', (kind) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  let topology: RedisTopology;
  let pgbouncer: TestPgBouncer;
  let databaseUrl: string;
  let database: Database;
  let sandbox: Sandbox;
  let sandboxUrl: string;
  let env: Record<string, string>;
  const gatewayCalls: { at: number; method: string; path: string }[] = [];
  const fleet: FleetProcess[] = [];
  let balancer: Forwarder;

  beforeAll(async () => {
    topology = await startRedisTopology(kind);
    cleanups.push(() => topology.stop());
    pgbouncer = await startPgBouncer(inject('databaseUrl'));
    cleanups.push(() => pgbouncer.stop());
    const name = `pm_scale_${randomBytes(5).toString('hex')}`;
    cleanups.push(() => dropTestDatabase(name));
    databaseUrl = pgbouncer.through(withDatabase(inject('databaseUrl'), name));

    const keys = generateKeyPair();
    sandbox = createSandbox({
      ...keys,
      postbackSecret: POSTBACK_SECRET,
      userId: SELLER_USER_ID,
      webhookUrl: null,
      faults: DEMO_FAULTS,
      random: seededRandom(SEED),
      retryBaseMs: 100,
      deliveryConcurrency: 8,
      reorderMaxHoldMs: 250,
      deliveryLogLimit: 1_000_000,
    });
    sandboxUrl = (await sandbox.listen(0)).url;
    cleanups.push(() => sandbox.close());
    const gatewayRecorder = await startForwarder({
      targets: () => [sandboxUrl],
      onRequest: (call) => {
        if (!call.path.startsWith('/_sandbox')) gatewayCalls.push(call);
      },
    });
    cleanups.push(() => gatewayRecorder.close());

    env = {
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      ...topology.env,
      QUEUE_PREFIX: `pmscale${randomBytes(3).toString('hex')}`,
      PORT: '0',
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
      POSTBACK_SECRETS: POSTBACK_SECRET,
      WEBHOOK_TOKENS: WEBHOOK_TOKEN,
      SELLER_USER_ID: String(SELLER_USER_ID),
      GATEWAY_BASE_URL: gatewayRecorder.url,
      GATEWAY_PUBLIC_KEY: keys.publicKey,
      GATEWAY_PRIVATE_KEY: keys.privateKey,
      GATEWAY_MAX_RPS: String(GATEWAY_MAX_RPS),
      RECONCILE_INTERVAL_SECONDS: '86400',
      SWEEP_INTERVAL_SECONDS: '1',
      SWEEP_AFTER_SECONDS: '5',
      JOB_LOCK_SECONDS: '5',
      JOB_ATTEMPTS: '30',
      JOB_BACKOFF_MS: '200',
      DB_POOL_MAX: '4',
      SHUTDOWN_TIMEOUT_SECONDS: '5',
      LOG_LEVEL: 'info',
    };
    const migrate = runCli(['migrate'], env);
    expect((await migrate.exited).code, migrate.output()).toBe(0);
    database = createDatabase(databaseUrl, { max: 4 });
    cleanups.push(() => database.close());

    const roles = [
      ['ingress', 2],
      ['worker', 3],
      ['scheduler', 2],
    ] as const;
    cleanups.push(() => Promise.all(fleet.map((process) => process.kill9())));
    for (const [role, count] of roles) {
      for (let n = 1; n <= count; n++) {
        const spool = { SPOOL_DIR: mkdtempSync(join(tmpdir(), 'pm-scale-spool-')) };
        fleet.push(await startFleetProcess(`${role}-${n}`, role, { ...env, ...spool }));
      }
    }
    balancer = await startForwarder({
      targets: () => fleet.filter((p) => p.role === 'ingress' && p.alive()).map((p) => p.url),
    });
    cleanups.push(() => balancer.close());
    const configured = await fetch(`${sandboxUrl}/_sandbox/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ webhookUrl: `${balancer.url}/webhooks/${WEBHOOK_TOKEN}` }),
    });
    expect(configured.status).toBe(200);
  });

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  it('ends with the mirror equal to the truth, nothing lost or doubled, the budget held', async () => {
    const scenario = buildScenario({
      sales: SALES,
      withdrawals: WITHDRAWALS,
      seed: SEED,
    });
    const driverConfig = parseConfig({
      GATEWAY_BASE_URL: sandboxUrl,
      GATEWAY_PUBLIC_KEY: env.GATEWAY_PUBLIC_KEY,
      GATEWAY_PRIVATE_KEY: env.GATEWAY_PRIVATE_KEY,
      GATEWAY_MAX_RPS: '1000',
    });
    const gateway = gatewayClientFor(driverConfig, null, null);
    if (!gateway) throw new Error('no gateway client');

    let chaos: Promise<void> | null = null;
    const state = sandbox.state;
    await driveScenario(scenario, {
      sandboxUrl,
      postbackUrl: `${balancer.url}/postbacks`,
      sql: database.sql,
      gateway,
      policy: driverConfig.watchPolicy,
      logger: createLogger({ level: 'silent' }),
      availableCents: () => state.balanceCents,
      progress: {
        ...NO_PROGRESS,
        step(label, done, total) {
          if (chaos === null && label === 'driving the scenario' && done >= total / 2) {
            chaos = midwayChaos();
          }
        },
      },
    });
    await chaos;

    // Drained: every delivery answered or abandoned, then no inbox row pending.
    await sandbox.idle();
    await waitFor(
      async () => {
        const [row] = await database.sql<{ pending: number }[]>`
          select count(*)::int as pending from inbox_events where state = 'pending'`;
        return row?.pending === 0 ? true : undefined;
      },
      { what: 'every inbox row processed', timeoutMs: 300_000 },
    ).catch(async (error: unknown) => {
      const diagnosis = await stuckRowsNow().catch((failure: unknown) => `(none: ${failure})`);
      throw new Error(`${(error as Error).message}\n${diagnosis}`);
    });

    const pass = runCli(['reconcile', '--all-open'], env);
    expect((await pass.exited).code, pass.output()).toBe(0);
    const truth = truthSnapshot(state, SELLER_USER_ID);
    let comparison: Comparison = compareSnapshots(truth, await mirrorSnapshot(database.sql));
    for (const mismatch of [...comparison.sales.mismatches, ...comparison.withdrawals.mismatches]) {
      if (mismatch.kind !== 'missing_in_mirror') continue;
      const one = runCli(['reconcile', mismatch.resource, String(mismatch.id)], env);
      expect((await one.exited).code, one.output()).toBe(0);
    }
    comparison = compareSnapshots(truth, await mirrorSnapshot(database.sql));

    const perSecond = new Map<number, number>();
    for (const call of gatewayCalls) {
      const second = Math.floor(call.at / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    process.stdout.write(
      `fleet on ${kind}: ${gatewayCalls.length} gateway calls, peak ${Math.max(...perSecond.values())}/s ` +
        `(budget ${GATEWAY_MAX_RPS}/s); ${state.deliveries.length} delivery attempts\n`,
    );
    expect(truth.sales).toHaveLength(SALES);
    expect(comparison.mismatchingRecords, JSON.stringify(comparison, null, 1)).toBe(0);
    expect(await duplicatedTransitions(database)).toEqual([]);
    expect(await lostDeliveries(database, sandbox)).toEqual([]);
    expect(await unfinishedRows(database)).toEqual([]);
    expect(budgetExcess(gatewayCalls, GATEWAY_MAX_RPS)).toEqual([]);
    expect(gatewayCalls.length).toBeGreaterThan(SALES);
  });

  /** describeStuckRows, through a Redis connection of its own. */
  async function stuckRowsNow(): Promise<string> {
    const config = parseConfig(env);
    const redis = createCommandRedis(config.redis);
    const lanes = createLaneQueues(redis, (queue) => queuePrefixFor(config, queue));
    try {
      // Closed before its start (a version read) ended, a queue on a shared connection fails
      // that read on a stripped emitter and takes the process down (withQueue in src/cli/storageContext.ts).
      await Promise.all(laneQueueList(lanes).map((queue) => queue.waitUntilReady()));
      return await describeStuckRows(
        database.sql,
        lanes,
        fleet.map((process) => ({ name: process.name, output: process.run.output })),
      );
    } finally {
      await closeLaneQueues(lanes);
      redis.disconnect();
    }
  }

  /** One ingress and one worker die without a word; a Redis master fails over. */
  async function midwayChaos(): Promise<void> {
    const victims = [
      fleet.find((p) => p.role === 'ingress'),
      fleet.find((p) => p.role === 'worker'),
    ];
    await Promise.all(victims.map((victim) => victim?.kill9()));
    await topology.failover();
  }
});

/** Transitions the mirror entered twice: the same move of one record, written again. */
async function duplicatedTransitions(database: Database): Promise<unknown[]> {
  return [
    ...(await database.sql`
    select resource_type, resource_id, from_status, to_status, count(*)::int as times
      from status_history where entered
     group by 1, 2, 3, 4 having count(*) > 1`),
  ];
}

/** Deliveries the sandbox saw answered 200 whose event is not in the inbox. */
async function lostDeliveries(database: Database, sandbox: Sandbox): Promise<string[]> {
  const accepted = new Set<string>();
  for (const entry of sandbox.state.deliveries) {
    if (entry.outcome !== 'delivered' || entry.statusCode !== 200) continue;
    const rawBody = Buffer.from(entry.body);
    const payload = parseJsonObject(rawBody);
    if (!payload) continue;
    const delivery = buildDelivery({
      channel: entry.channel,
      rawBody,
      payload,
      headers: {},
      sourceAddress: null,
    });
    accepted.add(`${entry.channel} ${delivery.eventKey}`);
  }
  const stored = new Set(
    (
      await database.sql<{ key: string }[]>`
        select channel || ' ' || event_key as key from inbox_events`
    ).map((row) => row.key),
  );
  return [...accepted].filter((key) => !stored.has(key));
}

async function unfinishedRows(database: Database): Promise<unknown[]> {
  return [
    ...(await database.sql`
    select state, outcome, count(*)::int as rows from inbox_events
     where state <> 'processed' group by 1, 2`),
  ];
}

/**
 * Windows of 10 s in which the fleet's gateway calls exceeded the budget: the shared bucket
 * allows its capacity (one second's worth) on top of the rate, and one more capacity after a
 * Redis failover that lost the bucket's key (replication is asynchronous).
 */
function budgetExcess(
  calls: readonly { at: number }[],
  maxRps: number,
): { from: string; calls: number }[] {
  const windowMs = 10_000;
  const allowed = maxRps * (windowMs / 1000) + 2 * maxRps;
  const times = calls.map((call) => call.at).sort((a, b) => a - b);
  const excess: { from: string; calls: number }[] = [];
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while ((times[end] as number) - (times[start] as number) >= windowMs) start++;
    const count = end - start + 1;
    if (count > allowed)
      excess.push({ from: new Date(times[start] as number).toISOString(), calls: count });
  }
  return excess.slice(0, 5);
}
