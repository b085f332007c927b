import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/config.js';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  configuredOrKeptSecrets,
  ensureNotificationSecrets,
} from '../../src/config/developmentSecrets.js';
import { developmentSecretsFile } from '../../src/config/developmentSecretsFile.js';
import { queuePrefixFor } from '../../src/runtime/redis.js';

describe('parseConfig', () => {
  it('applies the documented defaults', () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/paymirror',
      redis: { kind: 'single', url: 'redis://127.0.0.1:6379' },
      port: 3000,
      bodyLimitBytes: 65536,
      dedupeWindowHours: 24,
      sweepIntervalSeconds: 10,
      sweepAfterSeconds: 30,
      gateway: null,
      sellerUserId: null,
      production: false,
    });
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      parseConfig({
        DATABASE_URL: 'mysql://nope',
        PORT: 'eighty',
        POSTBACK_SECRETS: 'short',
        WEBHOOK_TOKENS: 'has spaces in it but long',
        LOG_LEVEL: 'loud',
        SELLER_USER_ID: '-4',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of [
      'DATABASE_URL',
      'PORT',
      'POSTBACK_SECRETS',
      'WEBHOOK_TOKENS',
      'LOG_LEVEL',
      'SELLER_USER_ID',
    ]) {
      expect(message).toContain(name);
    }
    expect(message).not.toContain('has spaces in it but long');
  });

  it('splits comma-separated secrets and tokens (rotation)', () => {
    const config = parseConfig({
      POSTBACK_SECRETS: 'first-secret-0123456789, second-secret-0123456789',
      WEBHOOK_TOKENS: 'token-one-0123456789,token-two-0123456789',
    });
    expect(config.postbackSecrets).toEqual(['first-secret-0123456789', 'second-secret-0123456789']);
    expect(config.webhookTokens).toHaveLength(2);
  });

  it('wants all three gateway variables or none, and checks CIDRs', () => {
    expect(() => parseConfig({ GATEWAY_PUBLIC_KEY: 'pk' })).toThrow(/GATEWAY_BASE_URL/);
    expect(() => parseConfig({ WEBHOOK_ALLOWED_CIDRS: '10.0.0.0/40' })).toThrow(
      /WEBHOOK_ALLOWED_CIDRS/,
    );
  });
});

describe('ensureNotificationSecrets', () => {
  it('makes up a secret and a token in development and says so', () => {
    const { config, generated } = ensureNotificationSecrets(parseConfig({}));
    expect(generated).not.toBeNull();
    expect(config.postbackSecrets).toEqual([generated?.postbackSecret]);
    expect(config.webhookTokens).toEqual([generated?.webhookToken]);
  });

  it('refuses to start in production without secrets, token and seller id', () => {
    expect(() => ensureNotificationSecrets(parseConfig({ NODE_ENV: 'production' }))).toThrow(
      /POSTBACK_SECRETS[\s\S]*WEBHOOK_TOKENS[\s\S]*SELLER_USER_ID/,
    );
  });

  const productionSecrets = {
    NODE_ENV: 'production',
    POSTBACK_SECRETS: 'a-postback-secret-0123',
    WEBHOOK_TOKENS: 'a-webhook-token-0123',
    SELLER_USER_ID: '7',
  };
  const gatewayKeys = {
    GATEWAY_BASE_URL: 'https://api.gateway.example',
    GATEWAY_PUBLIC_KEY: 'pk_live',
    GATEWAY_PRIVATE_KEY: 'sk_live',
  };

  it('keeps configured secrets untouched', () => {
    const configured = parseConfig({ ...productionSecrets, ...gatewayKeys });
    expect(ensureNotificationSecrets(configured)).toEqual({ config: configured, generated: null });
  });

  it('refuses production without gateway keys: unsigned webhooks could not be confirmed', () => {
    expect(() => ensureNotificationSecrets(parseConfig(productionSecrets))).toThrow(
      /GATEWAY_PRIVATE_KEY: required when NODE_ENV=production[\s\S]*UNCONFIRMED_WEBHOOKS=hold/,
    );
    const holding = parseConfig({ ...productionSecrets, UNCONFIRMED_WEBHOOKS: 'hold' });
    expect(ensureNotificationSecrets(holding).config.unconfirmedWebhooks).toBe('hold');
    expect(() =>
      ensureNotificationSecrets(
        parseConfig({ ...productionSecrets, UNCONFIRMED_WEBHOOKS: 'apply' }),
      ),
    ).toThrow(/UNCONFIRMED_WEBHOOKS=hold/);
  });

  it('makes up only what is missing, and never hands back a configured secret as generated', () => {
    const { config, generated } = ensureNotificationSecrets(
      parseConfig({ POSTBACK_SECRETS: 'a-postback-secret-0123' }),
    );
    expect(generated?.postbackSecret).toBeNull();
    expect(generated?.webhookToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(config.postbackSecrets).toEqual(['a-postback-secret-0123']);
    expect(config.webhookTokens).toEqual([generated?.webhookToken]);
  });
});

describe('development secrets file', () => {
  const fileIn = () =>
    developmentSecretsFile(
      join(mkdtempSync(join(tmpdir(), 'paymirror-dev-')), '.paymirror', 'dev.env'),
    );

  it('keeps what it made up and hands the same back at the next start', () => {
    const file = fileIn();
    const first = ensureNotificationSecrets(parseConfig({}), file);
    expect(first.generated?.reused).toBe(false);
    expect(first.generated?.file).toBe(file.path);
    const second = ensureNotificationSecrets(parseConfig({}), file);
    expect(second.generated?.reused).toBe(true);
    expect(second.config.postbackSecrets).toEqual(first.config.postbackSecrets);
    expect(second.config.webhookTokens).toEqual(first.config.webhookTokens);
    const text = readFileSync(file.path, 'utf8');
    expect(text).toContain(`POSTBACK_SECRETS=${first.generated?.postbackSecret}`);
    expect(text).toContain(`WEBHOOK_TOKENS=${first.generated?.webhookToken}`);
    expect(statSync(file.path).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dirname(file.path), '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('never writes a configured secret into the file', () => {
    const file = fileIn();
    ensureNotificationSecrets(parseConfig({ POSTBACK_SECRETS: 'a-postback-secret-0123' }), file);
    expect(readFileSync(file.path, 'utf8')).not.toContain('a-postback-secret-0123');
    expect(file.read().postbackSecret).toBeUndefined();
  });

  it('is never read in production', () => {
    const file = fileIn();
    ensureNotificationSecrets(parseConfig({}), file);
    expect(() => ensureNotificationSecrets(parseConfig({ NODE_ENV: 'production' }), file)).toThrow(
      /POSTBACK_SECRETS: required when NODE_ENV=production/,
    );
    expect(configuredOrKeptSecrets(parseConfig({ NODE_ENV: 'production' }), file)).toEqual({
      postbackSecrets: [],
      webhookTokens: [],
    });
    expect(configuredOrKeptSecrets(parseConfig({}), file).postbackSecrets).toHaveLength(1);
  });

  it('refuses a file it did not write, naming it', () => {
    const file = fileIn();
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, 'WEBHOOK_TOKENS=not a token\n');
    expect(() => ensureNotificationSecrets(parseConfig({}), file)).toThrow(
      /dev\.env: WEBHOOK_TOKENS/,
    );
  });
});

describe('NODE_ENV', () => {
  it.each(['development', 'test', 'production'])('accepts %s', (value) => {
    expect(parseConfig({ NODE_ENV: value }).production).toBe(value === 'production');
  });

  it.each(['prod', 'Production', 'staging'])(
    'refuses %s instead of meaning development',
    (value) => {
      expect(() => parseConfig({ NODE_ENV: value })).toThrow(
        /NODE_ENV: must be development, test or production/,
      );
    },
  );
});

describe('the admin listener (/metrics, bull-board, the console)', () => {
  it('is 127.0.0.1:9090 by default, apart from the public port', () => {
    expect(parseConfig({}).adminListener).toEqual({ host: '127.0.0.1', port: 9090 });
    expect(parseConfig({ HOST: '0.0.0.0', PORT: '8080' }).adminListener).toEqual({
      host: '127.0.0.1',
      port: 9090,
    });
    expect(parseConfig({ METRICS_HOST: '0.0.0.0', METRICS_PORT: '9100' }).adminListener).toEqual({
      host: '0.0.0.0',
      port: 9100,
    });
  });

  it('shares the public listener only when METRICS_PORT is set to PORT', () => {
    expect(parseConfig({ PORT: '8080', METRICS_PORT: '8080' }).adminListener).toBe('public');
    expect(
      parseConfig({
        HOST: '127.0.0.1',
        PORT: '8080',
        METRICS_PORT: '8080',
        METRICS_HOST: '127.0.0.1',
      }).adminListener,
    ).toBe('public');
    // Two free ports, not one shared listener.
    expect(parseConfig({ PORT: '0', METRICS_PORT: '0' }).adminListener).toEqual({
      host: '127.0.0.1',
      port: 0,
    });
  });

  it('refuses a PORT that is only by chance the admin default, or a second host for one port', () => {
    expect(() => parseConfig({ PORT: '9090' })).toThrow(/PORT: 9090 is METRICS_PORT's default/);
    expect(() =>
      parseConfig({ PORT: '8080', METRICS_PORT: '8080', METRICS_HOST: '10.0.0.1' }),
    ).toThrow(/METRICS_HOST: with METRICS_PORT equal to PORT/);
  });
});

describe('admin board and unconfirmed webhooks', () => {
  it('the board is read-only unless ADMIN_WRITE says otherwise', () => {
    expect(parseConfig({}).adminWrite).toBe(false);
    expect(parseConfig({ ADMIN_WRITE: 'true' }).adminWrite).toBe(true);
  });

  it('UNCONFIRMED_WEBHOOKS is apply or hold', () => {
    expect(parseConfig({}).unconfirmedWebhooks).toBeNull();
    expect(() => parseConfig({ UNCONFIRMED_WEBHOOKS: 'drop' })).toThrow(/must be apply or hold/);
  });
});

describe('the transition feed', () => {
  const url = 'https://erp.example.com/transitions';

  it('is off unless asked for: TRANSITIONS_ENABLED=true, or a TRANSITIONS_WEBHOOK_URL', () => {
    expect(parseConfig({}).transitions.enabled).toBe(false);
    expect(parseConfig({ TRANSITIONS_ENABLED: 'true' }).transitions).toMatchObject({
      enabled: true,
      webhookUrl: null,
    });
    expect(parseConfig({ TRANSITIONS_WEBHOOK_URL: url }).transitions).toMatchObject({
      enabled: true,
      webhookUrl: url,
    });
  });

  it('refuses a webhook URL with the feed turned off', () => {
    expect(() =>
      parseConfig({ TRANSITIONS_ENABLED: 'false', TRANSITIONS_WEBHOOK_URL: url }),
    ).toThrow(/TRANSITIONS_WEBHOOK_URL: set, while TRANSITIONS_ENABLED=false/);
  });
});

describe('Redis topologies', () => {
  it('a cluster from REDIS_CLUSTER_NODES', () => {
    expect(
      parseConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-b.internal:7001' }).redis,
    ).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-b.internal', port: 7001 },
      ],
      password: null,
    });
  });

  it('a Sentinel set from REDIS_SENTINELS and REDIS_SENTINEL_NAME', () => {
    expect(
      parseConfig({
        REDIS_SENTINELS: 's1:26379,s2:26379,s3:26379',
        REDIS_SENTINEL_NAME: 'paymirror',
        REDIS_PASSWORD: 'a-redis-password',
      }).redis,
    ).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
        { host: 's3', port: 26379 },
      ],
      name: 'paymirror',
      password: 'a-redis-password',
    });
  });

  it.each([
    [{ REDIS_URL: 'redis://a:6379', REDIS_CLUSTER_NODES: 'b:7000' }, /set one Redis topology/],
    [{ REDIS_CLUSTER_NODES: 'b:7000', REDIS_SENTINELS: 's:26379' }, /set one Redis topology/],
    [{ REDIS_SENTINELS: 's:26379' }, /REDIS_SENTINEL_NAME: required with REDIS_SENTINELS/],
    [{ REDIS_SENTINEL_NAME: 'x' }, /only meaningful with REDIS_SENTINELS/],
    [{ REDIS_CLUSTER_NODES: 'no-port' }, /REDIS_CLUSTER_NODES.*host:port/],
    [{ REDIS_CLUSTER_NODES: 'a:99999' }, /REDIS_CLUSTER_NODES.*port/],
    [{ REDIS_PASSWORD: 'secret-secret' }, /REDIS_PASSWORD: for a cluster or Sentinel/],
  ])('refuses %j', (env, message) => {
    expect(() => parseConfig(env)).toThrow(message);
  });

  it('gives each queue its own hash tag in a cluster, and keeps the plain prefix elsewhere', () => {
    const cluster = parseConfig({ REDIS_CLUSTER_NODES: 'a:7000', QUEUE_PREFIX: 'pm' });
    expect(queuePrefixFor(cluster, 'notifications')).toBe('{pm:notifications}');
    expect(queuePrefixFor(cluster, 'confirmations')).toBe('{pm:confirmations}');
    const single = parseConfig({ QUEUE_PREFIX: 'pm' });
    expect(queuePrefixFor(single, 'notifications')).toBe('pm');
  });
});
