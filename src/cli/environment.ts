import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
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

export function loggerFor(config: Config): Logger {
  return createLogger({
    level: config.logLevel,
    secrets: [
      ...config.postbackSecrets,
      ...config.webhookTokens,
      ...(config.gateway ? [config.gateway.privateKey, config.gateway.publicKey] : []),
    ],
  });
}

/** Known failures print one clear message and exit non-zero; anything else is a bug. */
export function exitOnError(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`paymirror: ${error.message}\n`);
    process.exit(2);
  }
  if (error instanceof Error && error.name !== 'Error') {
    process.stderr.write(`paymirror: ${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(
    `paymirror: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
}
