import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Sql } from '../db/client.js';
import type { Channel } from '../notifications/notification.js';
import { keptBody, type BodyKept } from './keptBody.js';
import { insertRejected } from './sql/rejected.js';

/** A delivery that failed authentication, as kept for diagnosis and re-verification. */
export interface RejectedDelivery {
  readonly channel: Channel;
  readonly reason: string;
  readonly rawBody: Buffer | null;
  /** How much of the body to keep (its digest and size are kept either way). */
  readonly bodyKept: BodyKept;
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
  const body = rejected.rawBody;
  const kept = body === null ? null : keptBody(body, rejected.bodyKept);
  await insertRejected(sql, {
    channel: rejected.channel,
    reason: rejected.reason,
    rawBody: kept?.bytes ?? null,
    bodySha256: body === null ? null : createHash('sha256').update(body).digest('hex'),
    bodyBytes: body?.length ?? null,
    bodyTruncated: kept?.truncated ?? false,
    headers,
    tokenSha256: rejected.token === null ? null : tokenSha256(rejected.token),
    sourceAddress: rejected.sourceAddress,
  });
}

export { trimRejected } from './sql/rejected.js';
