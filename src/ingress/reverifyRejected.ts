import type { Sql } from '../db/client.js';
import { buildDelivery } from '../inbox/delivery.js';
import { tokenSha256 } from '../inbox/rejectedDeliveries.js';
import { storeDelivery, type StoreResult } from '../inbox/storeDelivery.js';
import type { Channel } from '../notifications/notification.js';
import { sellerOf } from './sellerCheck.js';
import { verifyPostbackSignature } from './postbackSignature.js';
import { parseJsonObject } from './rawBody.js';
import type { SourceAllowlist } from './webhookAuth.js';

export interface CurrentCredentials {
  readonly postbackSecrets: readonly string[];
  readonly webhookTokens: readonly string[];
  readonly sellerUserId: number | null;
  readonly sourceAllowlist: SourceAllowlist | null;
  readonly dedupeWindowHours: number;
}

export interface ReverifySummary {
  readonly checked: number;
  /** Now authentic: stored in the inbox (accepted, duplicate or quarantined there). */
  readonly moved: number;
  readonly stillRejected: number;
  readonly acceptedIds: readonly number[];
}

interface RejectedRow {
  id: string;
  channel: Channel;
  raw_body: Buffer | null;
  headers: Record<string, string>;
  token_sha256: string | null;
  source_address: string | null;
}

/**
 * Checks every kept rejection again against the secrets, tokens and seller id configured now
 * (the fix after one was configured wrong) and moves the ones that pass into the inbox,
 * exactly as the ingress would have. Returns the ids of new inbox rows to enqueue.
 */
export async function reverifyRejected(
  sql: Sql,
  credentials: CurrentCredentials,
): Promise<ReverifySummary> {
  const rows = await sql<RejectedRow[]>`
    select id, channel, raw_body, headers, token_sha256, source_address
      from rejected_deliveries where inbox_event_id is null order by id`;
  const tokenHashes = new Set(credentials.webhookTokens.map(tokenSha256));
  const acceptedIds: number[] = [];
  let moved = 0;
  for (const row of rows) {
    const payload = row.raw_body ? parseJsonObject(row.raw_body) : null;
    if (!row.raw_body || !payload || !passes(row, payload, credentials, tokenHashes)) continue;
    const stored: StoreResult = await storeDelivery(
      sql,
      buildDelivery({
        channel: row.channel,
        rawBody: row.raw_body,
        payload,
        headers: row.headers,
        sourceAddress: row.source_address,
      }),
      { dedupeWindowHours: credentials.dedupeWindowHours },
    );
    await sql`update rejected_deliveries set inbox_event_id = ${stored.id} where id = ${row.id}`;
    if (stored.kind === 'accepted') acceptedIds.push(stored.id);
    moved += 1;
  }
  return { checked: rows.length, moved, stillRejected: rows.length - moved, acceptedIds };
}

function passes(
  row: RejectedRow,
  payload: Record<string, unknown>,
  credentials: CurrentCredentials,
  tokenHashes: ReadonlySet<string>,
): boolean {
  if (row.channel === 'postback') {
    return (
      verifyPostbackSignature(
        row.raw_body as Buffer,
        row.headers['x-signature'],
        credentials.postbackSecrets,
      ) && sellerOf(payload, credentials.sellerUserId) === 'ours'
    );
  }
  if (row.token_sha256 === null || !tokenHashes.has(row.token_sha256)) return false;
  if (credentials.sourceAllowlist && !credentials.sourceAllowlist.allows(row.source_address))
    return false;
  if (payload.type !== 'TRANSACTION' && payload.type !== 'WITHDRAWAL') return false;
  return (
    credentials.sellerUserId === null || sellerOf(payload, credentials.sellerUserId) === 'ours'
  );
}
