import type { IncomingMessage } from 'node:http';
import type { Logger } from '../log/logger.js';
import type { LaneRow } from '../queue/lanes.js';
import { sellerOf } from './sellerCheck.js';
import { buildDelivery, truncatedDelivery, type Delivery } from '../inbox/delivery.js';
import type { RejectedDelivery } from '../inbox/rejectedDeliveries.js';
import { isStorageOutage } from '../inbox/outage.js';
import type { Spool } from '../inbox/spool.js';
import type { StoreResult } from '../inbox/storeDelivery.js';
import type { Channel } from '../notifications/notification.js';
import type { AuthFailureLimiter } from './authFailureLimiter.js';
import type { IngestOutcome } from './outcome.js';
import { verifyPostbackSignature } from './postbackSignature.js';
import { BodyTooLargeError, isJsonContentType, parseJsonObject, readRawBody } from './rawBody.js';
import { headerBytes, type UnauthenticatedBytes } from './unauthenticatedBytes.js';
import { matchesWebhookToken, sourceAddressOf, type SourceAllowlist } from './webhookAuth.js';

export interface IngestDeps {
  readonly postbackSecrets: readonly string[];
  readonly webhookTokens: readonly string[];
  /** Null: userId is not checked (development without SELLER_USER_ID). */
  readonly sellerUserId: number | null;
  readonly sourceAllowlist: SourceAllowlist | null;
  readonly trustedProxyCount: number;
  readonly bodyLimitBytes: number;
  /** Stores durably; resolves only after the commit. */
  store(delivery: Delivery): Promise<StoreResult>;
  /**
   * Hands accepted rows to their lane, after the commit and without holding the answer; a
   * failure here loses nothing (the sweeper retries).
   */
  enqueue(row: LaneRow): Promise<void>;
  /** Where deliveries go while Postgres is down; null: answer 503 instead. */
  readonly spool: Spool | null;
  /** Called for each delivery written to the spool (metrics). */
  onSpooled?(): void;
  /** Keeps a delivery that failed authentication (best effort: never changes the answer). */
  recordRejection(rejected: RejectedDelivery): Promise<void>;
  /** What rejected deliveries and quarantined webhooks may write, in bytes. */
  readonly unauthenticatedBytes: UnauthenticatedBytes;
  /** Per-source limit on unauthenticated failures; null: no limit. */
  readonly authFailures: AuthFailureLimiter | null;
  readonly logger: Logger;
}

type BodyRead = { ok: true; raw: Buffer } | { ok: false; outcome: IngestOutcome };

async function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  if (!isJsonContentType(req.headers['content-type'])) {
    return { ok: false, outcome: { kind: 'rejected', reason: 'unsupported_media_type' } };
  }
  try {
    return { ok: true, raw: await readRawBody(req, limit) };
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      return {
        ok: false,
        outcome: { kind: 'rejected', reason: 'body_too_large', detail: error.message },
      };
    }
    return {
      ok: false,
      outcome: { kind: 'rejected', reason: 'unreadable_body', detail: (error as Error).message },
    };
  }
}

/**
 * Postbacks: 415 → 413 → 401 → 400 → 400/403 (userId), then store. The HMAC is verified first,
 * on the raw bytes (bounded by the body limit), and only an authentic body is parsed. Where a
 * postback comes from never decides whether it is accepted: the gateway signs from the same
 * address an attacker may share (a proxy, a NAT), so a correctly signed postback from an
 * address over its failure limit is stored like any other.
 */
export async function ingestPostback(
  req: IncomingMessage,
  deps: IngestDeps,
): Promise<IngestOutcome> {
  const body = await readBody(req, deps.bodyLimitBytes);
  if (!body.ok) return body.outcome;
  const signature = req.headers['x-signature'];
  if (
    !verifyPostbackSignature(
      body.raw,
      typeof signature === 'string' ? signature : undefined,
      deps.postbackSecrets,
    )
  ) {
    return failAuthentication(req, deps, 'postback', 'bad_signature', () => body.raw, null);
  }
  const payload = parseJsonObject(body.raw);
  if (payload === null) return { kind: 'rejected', reason: 'not_a_json_object' };
  const seller = sellerOf(payload, deps.sellerUserId);
  if (seller === 'invalid') return reject(req, deps, 'postback', 'invalid_user_id', body.raw, null);
  if (seller === 'foreign') return reject(req, deps, 'postback', 'foreign_user', body.raw, null);
  return store('postback', req, body.raw, payload, deps);
}

/** Webhooks: 404 (token) → 403 (source) → 415 → 413 → 400 → 403 (type, userId), then store. */
export async function ingestWebhook(
  req: IncomingMessage,
  token: string,
  deps: IngestDeps,
): Promise<IngestOutcome> {
  if (!matchesWebhookToken(token, deps.webhookTokens)) {
    return failAuthentication(
      req,
      deps,
      'webhook',
      'unknown_token',
      () => bodyIfReadable(req, deps),
      token,
    );
  }
  if (
    deps.sourceAllowlist &&
    !deps.sourceAllowlist.allows(sourceAddressOf(req, deps.trustedProxyCount))
  ) {
    return failAuthentication(
      req,
      deps,
      'webhook',
      'source_not_allowed',
      () => bodyIfReadable(req, deps),
      token,
    );
  }
  const body = await readBody(req, deps.bodyLimitBytes);
  if (!body.ok) return body.outcome;
  const payload = parseJsonObject(body.raw);
  if (payload === null) return { kind: 'rejected', reason: 'not_a_json_object' };
  if (payload.type !== 'TRANSACTION' && payload.type !== 'WITHDRAWAL') {
    return reject(req, deps, 'webhook', 'wrong_type', body.raw, token);
  }
  if (deps.sellerUserId !== null && sellerOf(payload, deps.sellerUserId) !== 'ours') {
    return reject(req, deps, 'webhook', 'foreign_user', body.raw, token);
  }
  return store('webhook', req, body.raw, payload, deps);
}

type AuthFailure =
  | 'bad_signature'
  | 'unknown_token'
  | 'source_not_allowed'
  | 'wrong_type'
  | 'foreign_user'
  | 'invalid_user_id';

/**
 * An unauthenticated failure (bad signature, unknown token, source not allowed): 429 while the
 * source is over its limit — the rejection neither kept nor logged, a webhook's body not even
 * read —, else counted against the source and rejected as usual. The limiter only ever sees
 * failures: an authentic delivery (a webhook on the right token, a correctly signed postback)
 * never gets here, whatever its source.
 */
async function failAuthentication(
  req: IncomingMessage,
  deps: IngestDeps,
  channel: Channel,
  reason: 'bad_signature' | 'unknown_token' | 'source_not_allowed',
  rawBody: () => Buffer | null | Promise<Buffer | null>,
  token: string | null,
): Promise<IngestOutcome> {
  const limiter = deps.authFailures;
  if (limiter) {
    const source = sourceAddressOf(req, deps.trustedProxyCount);
    const retryAfterSeconds = limiter.retryAfterSeconds(source);
    if (retryAfterSeconds > 0) return { kind: 'limited', retryAfterSeconds };
    limiter.recordFailure(source);
  }
  return reject(req, deps, channel, reason, await rawBody(), token);
}

/**
 * Answers the rejection at once; keeping it for `rejected reverify` happens on the side, within
 * the unauthenticated byte budget: its digest, headers, size and head, the whole body for a
 * sample, nothing once the budget is spent.
 */
function reject(
  req: IncomingMessage,
  deps: IngestDeps,
  channel: Channel,
  reason: AuthFailure,
  rawBody: Buffer | null,
  token: string | null,
): IngestOutcome {
  const sourceAddress = sourceAddressOf(req, deps.trustedProxyCount);
  const bodyKept = deps.unauthenticatedBytes.forRejection(
    sourceAddress,
    rawBody?.length ?? 0,
    headerBytes(req.rawHeaders),
  );
  if (bodyKept === 'nothing') return { kind: 'rejected', reason };
  deps
    .recordRejection({
      channel,
      reason,
      rawBody,
      bodyKept,
      headers: req.headers,
      token,
      sourceAddress,
    })
    .catch((error: unknown) =>
      deps.logger.warn({ err: error, reason }, 'cannot keep the rejected delivery'),
    );
  return { kind: 'rejected', reason };
}

/** The body of a request refused before its body mattered, when it is small enough to keep. */
async function bodyIfReadable(req: IncomingMessage, deps: IngestDeps): Promise<Buffer | null> {
  try {
    return await readRawBody(req, deps.bodyLimitBytes);
  } catch {
    return null;
  }
}

async function store(
  channel: Channel,
  req: IncomingMessage,
  raw: Buffer,
  payload: Record<string, unknown>,
  deps: IngestDeps,
): Promise<IngestOutcome> {
  const delivery = buildDelivery({
    channel,
    rawBody: raw,
    payload,
    headers: req.headers,
    sourceAddress: sourceAddressOf(req, deps.trustedProxyCount),
  });
  let stored: StoreResult;
  try {
    stored = await deps.store(withinBudget(req, delivery, deps));
  } catch (error) {
    if (deps.spool && isStorageOutage(error)) return spool(deps.spool, delivery, deps, error);
    deps.logger.error({ err: error, channel }, 'cannot store delivery; answering 503');
    return { kind: 'unavailable' };
  }
  if (stored.kind === 'accepted') {
    // Not awaited: the row is committed, which is all the 200 promises. Waiting for Redis too
    // held every answer for one more batch and round trip; a lost add is the sweeper's.
    const inboxEventId = stored.id;
    deps
      .enqueue({ id: inboxEventId, channel, recordKnown: stored.recordKnown })
      .catch((error: unknown) =>
        deps.logger.warn(
          { err: error, inboxEventId },
          'enqueue failed; the sweeper will enqueue the stored row',
        ),
      );
  }
  if (stored.kind === 'quarantined') {
    deps.logger.warn(
      { inboxEventId: stored.id, channel, reason: delivery.quarantineReason },
      'delivery quarantined',
    );
  }
  return stored;
}

/**
 * A quarantined webhook keeps its whole body while the unauthenticated byte budget lasts, then
 * only its head: its path token is a weaker credential than a postback's HMAC, whose quarantined
 * body comes from the gateway and is always kept whole.
 */
function withinBudget(req: IncomingMessage, delivery: Delivery, deps: IngestDeps): Delivery {
  if (delivery.channel !== 'webhook' || delivery.notice !== null) return delivery;
  const kept = deps.unauthenticatedBytes.forQuarantine(
    delivery.rawBody.length,
    headerBytes(req.rawHeaders),
  );
  return kept === 'whole' ? delivery : truncatedDelivery(delivery);
}

async function spool(
  target: Spool,
  delivery: Delivery,
  deps: IngestDeps,
  cause: unknown,
): Promise<IngestOutcome> {
  try {
    await target.append({
      channel: delivery.channel,
      rawBody: delivery.rawBody,
      headers: delivery.headers,
      sourceAddress: delivery.sourceAddress,
      receivedAt: new Date().toISOString(),
    });
  } catch (error) {
    deps.logger.error(
      { err: error, cause },
      'Postgres down and the spool cannot be written; answering 503',
    );
    return { kind: 'unavailable' };
  }
  deps.onSpooled?.();
  deps.logger.warn(
    { err: cause, channel: delivery.channel },
    'Postgres unreachable: delivery spooled',
  );
  return { kind: 'spooled' };
}
