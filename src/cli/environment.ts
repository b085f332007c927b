import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { pino } from 'pino';
import pretty from 'pino-pretty';
import { ConfigError, parseConfig, type Config } from '../config/config.js';
import { createLogger, type Logger } from '../log/logger.js';

/** The CLI is the one place that reads process.env (and `.env`: see docs/configuration.md). */
export function loadConfig(): Config {
  return parseConfig(environment());
}

/** `.env` in the working directory, under the real environment: what is set there wins. */
export function environment(): Record<string, string | undefined> {
  const file = '.env';
  if (!existsSync(file)) return process.env;
  return { ...parseEnv(readFileSync(file, 'utf8')), ...process.env };
}

/**
 * Logs are JSON lines (for machines) unless they go to a terminal, where pino-pretty makes
 * them readable; secrets are scrubbed before either.
 */
export function loggerFor(config: Config, fd: 1 | 2 = 1): Logger {
  const terminal = (fd === 1 ? process.stdout : process.stderr).isTTY === true;
  return createLogger({
    level: config.logLevel,
    ...(terminal
      ? { destination: pretty({ destination: fd, colorize: true, translateTime: 'SYS:isoTime' }) }
      : fd === 2
        ? { destination: pino.destination(2) }
        : {}),
    secrets: secretsOf(config),
  });
}

/**
 * Every secret the configuration holds, scrubbed from each log line whatever carries it: the
 * notification secrets, the gateway keys, ADMIN_TOKEN, REDIS_PASSWORD, and the credentials inside REDIS_URL,
 * DATABASE_URL and REPORTS_DATABASE_URL. Those are scrubbed as the URL writes them
 * (`user:password@`), not as a bare word: compose's password is `postgres`, and scrubbing the
 * word would blank every mention of the service.
 */
export function secretsOf(config: Config): string[] {
  const urls = [config.databaseUrl, config.reportsDatabaseUrl];
  if (config.redis.kind === 'single') urls.push(config.redis.url);
  return [
    ...config.postbackSecrets,
    ...config.webhookTokens,
    ...(config.gateway ? [config.gateway.privateKey, config.gateway.publicKey] : []),
    ...(config.adminToken ? [config.adminToken] : []),
    ...(config.redis.kind !== 'single' && config.redis.password ? [config.redis.password] : []),
    ...urls.flatMap(credentialsIn),
  ];
}

/** A URL's `user:password@` as written in it, when it has a password. */
function credentialsIn(url: string): string[] {
  const parsed = new URL(url);
  return parsed.password === '' ? [] : [`${parsed.username}:${parsed.password}@`];
}

/** Known failures print one clear message and exit non-zero; anything else is a bug. */
export function exitOnError(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`paymirror: ${error.message}\n`);
    process.exit(2);
  }
  if (error instanceof Error && error.name !== 'Error') {
    process.stderr.write(`paymirror: ${error.message}\n`);
    const { exitCode } = error as { exitCode?: unknown };
    process.exit(typeof exitCode === 'number' ? exitCode : 1);
  }
  process.stderr.write(
    `paymirror: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
}
