import type { Config, RedisTopology } from '../config/config.js';
import { ConfigError } from '../config/config.js';
import { createDatabase, type Database } from '../db/client.js';
import { checkSchemaVersion } from '../db/schemaVersion.js';
import { requirePostgres } from '../runtime/dependencies.js';
import type { GatewayClient } from '../gateway/index.js';
import { createNotOursGate, type NotOursGate } from '../gateway/notOursGate.js';
import type { Logger } from '../log/logger.js';
import { gatewayClientFor } from '../runtime/gatewayClient.js';
import { createProducerRedis, settle, type RedisClient } from '../runtime/redis.js';
import { loadConfig, loggerFor } from './environment.js';

export interface GatewayContext {
  readonly config: Config;
  readonly database: Database;
  readonly gateway: GatewayClient;
  readonly logger: Logger;
}

/** Opens what the operator commands need, runs `fn`, and always releases it. */
export async function withGatewayContext<T>(
  fn: (context: GatewayContext) => Promise<T>,
): Promise<T> {
  const config = loadConfig();
  const budget = await budgetRedis(config.redis);
  const gate = config.gateway ? createNotOursGate(config.gateway.notOursBreaker) : null;
  const gateway = gatewayClientFor(config, null, budget.redis, 'all', gate);
  if (!gateway || !gate) {
    budget.close();
    throw new ConfigError([
      'GATEWAY_BASE_URL, GATEWAY_PUBLIC_KEY, GATEWAY_PRIVATE_KEY: required by this command',
    ]);
  }
  // Logs go to stderr: stdout carries the command's own answer.
  const logger = loggerFor(config, 2);
  if (!budget.redis) {
    logger.warn(
      'Redis cannot be reached: this command paces its gateway calls alone, outside the budget the running paymirror shares (GATEWAY_MAX_RPS)',
    );
  }
  try {
    await checkBaseUrl(gateway, gate, logger);
    await requirePostgres(config.databaseUrl);
    const database = createDatabase(config.databaseUrl, { max: 2 });
    try {
      await checkSchemaVersion(database.sql);
      return await fn({ config, database, gateway, logger });
    } finally {
      await database.close();
    }
  } finally {
    budget.close();
  }
}

/**
 * A 404 for GET /api/transactions/{not a number} means GATEWAY_BASE_URL is wrong: stop (exit
 * 2). No answer: go on, but read no answer as "not ours" (docs/reconciliation.md).
 */
async function checkBaseUrl(gateway: GatewayClient, gate: NotOursGate, logger: Logger) {
  const verdict = await gateway.checkBaseUrl();
  if (verdict.kind === 'ok') gate.setBaseUrl('ok');
  else if (verdict.kind === 'wrong') {
    throw new ConfigError([`GATEWAY_BASE_URL: ${verdict.detail}: the base path is wrong`]);
  } else {
    logger.warn(
      { problem: verdict.detail },
      'gateway base URL not checked: no answer is read as "not ours" by this command',
    );
  }
}

/** The Redis holding the gateway budget, when it answers within a moment; else null. */
async function budgetRedis(
  topology: RedisTopology,
): Promise<{ redis: RedisClient | null; close(): void }> {
  const redis = createProducerRedis(topology);
  redis.on('error', () => {});
  await settle(redis, 2000);
  if (redis.status === 'ready') return { redis, close: () => redis.disconnect() };
  redis.disconnect();
  return { redis: null, close: () => {} };
}

/** A progress line on a terminal; nothing when stderr is a pipe or a file. */
export function progressPrinter(label: string): (done: number, total: number) => void {
  if (!process.stderr.isTTY) return () => {};
  return (done, total) => {
    process.stderr.write(`\r${label}: ${done}/${total}${done === total ? '\n' : ''}`);
  };
}
