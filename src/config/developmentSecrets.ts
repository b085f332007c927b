import { randomBytes } from 'node:crypto';
import { ConfigError, type Config } from './config.js';
import type { DevelopmentSecretsFile } from './developmentSecretsFile.js';

/** What development mode supplied; null where the operator configured one. */
export interface GeneratedSecrets {
  readonly postbackSecret: string | null;
  readonly webhookToken: string | null;
  /** Where they are kept between runs; null when nothing is kept (no file given). */
  readonly file: string | null;
  /** True when the file already held them: the URLs given to the gateway still work. */
  readonly reused: boolean;
}

/**
 * `start` needs a postback secret and a webhook token to authenticate anything. In production
 * their absence is an error and the development file is never read; in development paymirror
 * takes them from that file, or makes them up once and keeps them there, so the URLs given to
 * the gateway or the sandbox survive a restart (the entry point prints them and warns).
 */
export function ensureNotificationSecrets(
  config: Config,
  file: DevelopmentSecretsFile | null = null,
): {
  config: Config;
  generated: GeneratedSecrets | null;
} {
  const missing: string[] = [];
  if (config.postbackSecrets.length === 0) missing.push('POSTBACK_SECRETS');
  if (config.webhookTokens.length === 0) missing.push('WEBHOOK_TOKENS');
  if (config.production) {
    if (config.sellerUserId === null) missing.push('SELLER_USER_ID');
    const problems = missing.map((name) => `${name}: required when NODE_ENV=production`);
    if (config.gateway === null && config.unconfirmedWebhooks !== 'hold') {
      // A leaked webhook URL could then write any status and amount into the mirror.
      problems.push(
        'GATEWAY_BASE_URL, GATEWAY_PUBLIC_KEY, GATEWAY_PRIVATE_KEY: required when' +
          ' NODE_ENV=production, to confirm unsigned webhooks; or set UNCONFIRMED_WEBHOOKS=hold' +
          ' to store webhooks without applying them',
      );
    }
    if (problems.length > 0) throw new ConfigError(problems);
    return { config, generated: null };
  }
  if (missing.length === 0) return { config, generated: null };
  const kept = file?.read() ?? {};
  const made = () => randomBytes(24).toString('base64url');
  const postbackSecret =
    config.postbackSecrets.length === 0 ? (kept.postbackSecret ?? made()) : null;
  const webhookToken = config.webhookTokens.length === 0 ? (kept.webhookToken ?? made()) : null;
  const reused =
    (postbackSecret === null || postbackSecret === kept.postbackSecret) &&
    (webhookToken === null || webhookToken === kept.webhookToken);
  if (file && !reused) {
    file.write({
      ...kept,
      ...(postbackSecret ? { postbackSecret } : {}),
      ...(webhookToken ? { webhookToken } : {}),
    });
  }
  return {
    config: {
      ...config,
      postbackSecrets: postbackSecret ? [postbackSecret] : config.postbackSecrets,
      webhookTokens: webhookToken ? [webhookToken] : config.webhookTokens,
    },
    generated: { postbackSecret, webhookToken, file: file?.path ?? null, reused },
  };
}

/**
 * The secrets a development paymirror runs with when none are configured, read without
 * making any up: what `trigger` signs with. Production never reads the file.
 */
export function configuredOrKeptSecrets(
  config: Config,
  file: DevelopmentSecretsFile,
): { postbackSecrets: readonly string[]; webhookTokens: readonly string[] } {
  const kept = config.production ? {} : file.read();
  return {
    postbackSecrets:
      config.postbackSecrets.length > 0
        ? config.postbackSecrets
        : kept.postbackSecret
          ? [kept.postbackSecret]
          : [],
    webhookTokens:
      config.webhookTokens.length > 0
        ? config.webhookTokens
        : kept.webhookToken
          ? [kept.webhookToken]
          : [],
  };
}
