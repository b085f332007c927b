import { pino } from 'pino';
import type { Config } from '../config/config.js';
import { ConfigError } from '../config/config.js';
import { createDatabase, type Database } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';
import type { GatewayClient } from '../gateway/index.js';
import { createLogger, type Logger } from '../log/logger.js';
import { gatewayClientFor } from '../runtime/gatewayClient.js';
import { loadConfig } from './environment.js';

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
  const gateway = gatewayClientFor(config, null);
  if (!gateway) {
    throw new ConfigError([
      'GATEWAY_BASE_URL, GATEWAY_PUBLIC_KEY, GATEWAY_PRIVATE_KEY: required by this command',
    ]);
  }
  // Logs go to stderr: stdout carries the command's own answer.
  const logger = createLogger({
    level: config.logLevel,
    secrets: [config.gateway?.privateKey ?? '', config.gateway?.publicKey ?? ''],
    destination: pino.destination(2),
  });
  await runMigrations(config.databaseUrl);
  const database = createDatabase(config.databaseUrl, { max: 2 });
  try {
    return await fn({ config, database, gateway, logger });
  } finally {
    await database.close();
  }
}

/** A progress line on a terminal; nothing when stderr is a pipe or a file. */
export function progressPrinter(label: string): (done: number, total: number) => void {
  if (!process.stderr.isTTY) return () => {};
  return (done, total) => {
    process.stderr.write(`\r${label}: ${done}/${total}${done === total ? '\n' : ''}`);
  };
}
