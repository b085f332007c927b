import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Sql } from '../db/client.js';
import type { Channel } from '../notifications/notification.js';
import { insertRejected } from './sql/rejected.js';

/** A delivery that failed authentication, as kept for diagnosis and re-verification. */
export interface RejectedDelivery {
  readonly channel: Channel;
  readonly reason: string;
  readonly rawBody: Buffer | null;
  readonly headers: IncomingHttpHeaders;
  /** Webhooks: the path token they came with, hashed at once. */
  readonly token: string | null;
  readonly sourceAddress: string | null;
}

export function tokenSha256(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export async function storeRejected(sql: Sql, rejected: RejectedDelivery): Promise<void> {
  const headers = Object.fromEntries(
    Object.entries(rejected.headers)
      .filter(
        ([name, value]) => value !== undefined && name !== 'cookie' && name !== 'authorization',
      )
      .map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]),
  );
  await insertRejected(sql, {
    channel: rejected.channel,
    reason: rejected.reason,
    rawBody: rejected.rawBody,
    headers,
    tokenSha256: rejected.token === null ? null : tokenSha256(rejected.token),
    sourceAddress: rejected.sourceAddress,
  });
}

export { trimRejected, type RejectRetention } from './sql/rejected.js';
