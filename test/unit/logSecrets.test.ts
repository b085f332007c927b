import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { secretsOf } from '../../src/cli/environment.js';
import { parseConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/log/logger.js';

/** The lines a logger with the configuration's secrets writes for `message`. */
function logged(env: Record<string, string | undefined>, message: string): string {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({
    level: 'info',
    destination,
    secrets: secretsOf(parseConfig(env)),
  });
  logger.error({ err: new Error(message) }, message);
  return lines.join('');
}

describe('log lines', () => {
  it.each([
    {
      what: 'the password in REDIS_URL',
      env: { REDIS_URL: 'redis://:url-redis-secret@127.0.0.1:6379' },
      message: 'cannot reach redis://:url-redis-secret@127.0.0.1:6379',
      secrets: ['url-redis-secret'],
    },
    {
      what: 'REDIS_PASSWORD',
      env: {
        REDIS_SENTINELS: '127.0.0.1:26379',
        REDIS_SENTINEL_NAME: 'paymirror',
        REDIS_PASSWORD: 'sentinel-redis-secret',
      },
      message: 'AUTH sentinel-redis-secret refused',
      secrets: ['sentinel-redis-secret'],
    },
    {
      what: 'ADMIN_TOKEN',
      env: { ADMIN_TOKEN: 'admin-token-never-logged-0123' },
      message: 'console login with admin-token-never-logged-0123',
      secrets: ['admin-token-never-logged-0123'],
    },
    {
      what: 'the credentials in DATABASE_URL and REPORTS_DATABASE_URL',
      env: {
        DATABASE_URL: 'postgres://paymirror:db-secret-1@db.internal:5432/paymirror',
        REPORTS_DATABASE_URL: 'postgres://reader:reports%2Fsecret@replica.internal:5432/paymirror',
      },
      message:
        'connect failed: postgres://paymirror:db-secret-1@db.internal:5432/paymirror and ' +
        'postgres://reader:reports%2Fsecret@replica.internal:5432/paymirror',
      secrets: ['db-secret-1', 'reports%2Fsecret'],
    },
  ])('never carry $what', ({ env, message, secrets }) => {
    const line = logged(env, message);
    for (const secret of secrets) expect(line).not.toContain(secret);
    expect(line).toContain('[REDACTED]');
  });

  it("keeps a word that is also compose's password where it is not a credential", () => {
    const line = logged(
      { DATABASE_URL: 'postgres://postgres:postgres@postgres:5432/paymirror' },
      'cannot reach postgres://postgres:postgres@postgres:5432/paymirror; postgres is down',
    );
    expect(line).not.toContain('postgres:postgres@');
    expect(line).toContain('postgres is down');
  });
});
