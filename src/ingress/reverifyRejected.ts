import type { Sql } from '../db/client.js';
import { buildDelivery } from '../inbox/delivery.js';
import { tokenSha256 } from '../inbox/rejectedDeliveries.js';
import { keptRejections, markMoved, type KeptRejection } from '../inbox/sql/rejected.js';
import { storeDelivery, type StoreResult } from '../inbox/storeDelivery.js';
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
  /**
   * Kept with only the first bytes of their body (all but a small sample are: SECURITY.md,
   * "Denial of service"): they cannot be checked again, and the gateway must deliver them again.
   */
  readonly notRecheckable: number;
  readonly acceptedIds: readonly number[];
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
  const rows = await keptRejections(sql);
  const tokenHashes = new Set(credentials.webhookTokens.map(tokenSha256));
  const acceptedIds: number[] = [];
  let moved = 0;
  let notRecheckable = 0;
  for (const row of rows) {
    if (row.bodyTruncated) {
      notRecheckable += 1;
      continue;
    }
    const payload = row.rawBody ? parseJsonObject(row.rawBody) : null;
    if (!row.rawBody || !payload || !passes(row, payload, credentials, tokenHashes)) continue;
    const stored: StoreResult = await storeDelivery(
      sql,
      buildDelivery({
        channel: row.channel,
        rawBody: row.rawBody,
        payload,
        headers: row.headers,
        sourceAddress: row.sourceAddress,
      }),
      { dedupeWindowHours: credentials.dedupeWindowHours },
    );
    await markMoved(sql, row.id, stored.id);
    if (stored.kind === 'accepted') acceptedIds.push(stored.id);
    moved += 1;
  }
  return {
    checked: rows.length,
    moved,
    stillRejected: rows.length - moved - notRecheckable,
    notRecheckable,
    acceptedIds,
  };
}

function passes(
  row: KeptRejection,
  payload: Record<string, unknown>,
  credentials: CurrentCredentials,
  tokenHashes: ReadonlySet<string>,
): boolean {
  if (row.channel === 'postback') {
    return (
      verifyPostbackSignature(
        row.rawBody as Buffer,
        row.headers['x-signature'],
        credentials.postbackSecrets,
      ) && sellerOf(payload, credentials.sellerUserId) === 'ours'
    );
  }
  if (row.tokenSha256 === null || !tokenHashes.has(row.tokenSha256)) return false;
  if (credentials.sourceAllowlist && !credentials.sourceAllowlist.allows(row.sourceAddress))
    return false;
  if (payload.type !== 'TRANSACTION' && payload.type !== 'WITHDRAWAL') return false;
  return (
    credentials.sellerUserId === null || sellerOf(payload, credentials.sellerUserId) === 'ours'
  );
}
