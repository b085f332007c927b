import { randomBytes } from 'node:crypto';
import { ConfigError, type Config } from './config.js';

export interface GeneratedSecrets {
  readonly postbackSecret: string;
  readonly webhookToken: string;
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
    if (missing.length > 0) {
      throw new ConfigError(missing.map((name) => `${name}: required when NODE_ENV=production`));
    }
    return { config, generated: null };
  }
  if (missing.length === 0) return { config, generated: null };
  const generated: GeneratedSecrets = {
    postbackSecret: config.postbackSecrets[0] ?? randomBytes(24).toString('base64url'),
    webhookToken: config.webhookTokens[0] ?? randomBytes(24).toString('base64url'),
  };
  return {
    config: {
      ...config,
      postbackSecrets: [generated.postbackSecret],
      webhookTokens: [generated.webhookToken],
    },
    generated,
  };
}
