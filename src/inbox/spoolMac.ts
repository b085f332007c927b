import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { InvariantError } from '../lib/invariantError.js';

/**
 * Each spool line carries an HMAC so a line written into the spool by anyone but this
 * ingress (a shared volume, a careless restore) never reaches the inbox as if it had been
 * authenticated. The key is derived from the configured secrets, never stored: lines are
 * signed with the first postback secret's key and accepted under any configured secret's,
 * so a rotation that keeps the old secret listed still replays what was spooled before it.
 */
export interface SpoolMac {
  sign(line: string): string;
  verify(line: string, mac: string): boolean;
}

const INFO = 'paymirror spool line mac v1';

export function createSpoolMac(signing: string, accepted: readonly string[]): SpoolMac {
  const derive = (secret: string) =>
    Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), INFO, 32));
  const signingKey = derive(signing);
  const keys = [signing, ...accepted.filter((secret) => secret !== signing)].map(derive);
  const mac = (key: Buffer, line: string) => createHmac('sha256', key).update(line).digest();
  return {
    sign: (line) => mac(signingKey, line).toString('hex'),
    verify(line, presented) {
      if (!/^[0-9a-f]{64}$/.test(presented)) return false;
      const given = Buffer.from(presented, 'hex');
      return keys.some((key) => timingSafeEqual(mac(key, line), given));
    },
  };
}

/** The spool's MAC from the ingress's configured secrets (the first postback secret signs). */
export function spoolMacFor(
  postbackSecrets: readonly string[],
  webhookTokens: readonly string[],
): SpoolMac {
  const all = [...postbackSecrets, ...webhookTokens];
  const signing = all[0];
  if (signing === undefined)
    throw new InvariantError('the spool needs a postback secret or webhook token');
  return createSpoolMac(signing, all);
}
