import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Sql } from '../db/client.js';
import type { Channel } from '../notifications/notification.js';

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
  await sql`
    insert into rejected_deliveries (channel, reason, raw_body, headers, token_sha256, source_address)
    values (${rejected.channel}, ${rejected.reason}, ${rejected.rawBody}::bytea,
            ${JSON.stringify(headers)}::jsonb,
            ${rejected.token === null ? null : tokenSha256(rejected.token)}, ${rejected.sourceAddress})`;
}

export interface RejectRetention {
  readonly maxRows: number;
  readonly maxAgeDays: number;
}

/** Keeps the table bounded by age and by count; returns how many rows went. */
export async function trimRejected(sql: Sql, retention: RejectRetention): Promise<number> {
  const old = await sql`
    delete from rejected_deliveries
     where received_at < now() - make_interval(days => ${retention.maxAgeDays})`;
  const excess = await sql`
    delete from rejected_deliveries
     where id <= (select max(id) from rejected_deliveries) - ${retention.maxRows}`;
  return old.count + excess.count;
}
