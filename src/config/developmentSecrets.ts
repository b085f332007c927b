import { randomBytes } from 'node:crypto';
import { ConfigError, type Config } from './config.js';

/** What paymirror made up for this run; null where the operator configured one. */
export interface GeneratedSecrets {
  readonly postbackSecret: string | null;
  readonly webhookToken: string | null;
}

/**
 * `start` needs a postback secret and a webhook token to authenticate anything. In production
 * their absence is an error; in development paymirror makes a pair up so a newcomer can run it
 * at once (the entry point prints them and warns).
 */
export function ensureNotificationSecrets(config: Config): {
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
  const made = () => randomBytes(24).toString('base64url');
  const generated: GeneratedSecrets = {
    postbackSecret: config.postbackSecrets.length === 0 ? made() : null,
    webhookToken: config.webhookTokens.length === 0 ? made() : null,
  };
  return {
    config: {
      ...config,
      postbackSecrets: generated.postbackSecret
        ? [generated.postbackSecret]
        : config.postbackSecrets,
      webhookTokens: generated.webhookToken ? [generated.webhookToken] : config.webhookTokens,
    },
    generated,
  };
}
