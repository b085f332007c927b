import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Channel, Notice } from '../notifications/notification.js';
import { jsonbTakesAsIs, jsonbText } from '../notifications/jsonbSafe.js';
import { eventKeyOf, parseNotification } from '../notifications/parseNotification.js';
import { keptBody } from './keptBody.js';

/** An authenticated delivery, ready to be stored in the inbox. */
export interface Delivery {
  readonly channel: Channel;
  readonly rawBody: Buffer;
  readonly payload: Record<string, unknown>;
  /** What the jsonb column is given. */
  readonly payloadSource: PayloadSource;
  readonly headers: Record<string, string>;
  readonly sourceAddress: string | null;
  /** The digest and size of the body as received, whatever `rawBody` keeps of it. */
  readonly bodySha256: string;
  readonly bodyBytes: number;
  /** `rawBody` is only the body's head (truncatedDelivery). */
  readonly bodyTruncated: boolean;
  readonly eventKey: string;
  /** Set when paymirror understood the delivery; otherwise `quarantineReason` says why not. */
  readonly notice: Notice | null;
  readonly quarantineReason: string | null;
}

/**
 * Where the inbox row's `payload` (jsonb) comes from: the body's own text, which Postgres parses
 * (jsonbTakesAsIs: a gateway's body nearly always), or the payload serialised again (JSON.stringify
 * of the parsed body, checked by jsonbText); or nowhere, when jsonb cannot hold it (the row's
 * payload is null and the delivery is quarantined).
 */
type PayloadSource =
  | { readonly kind: 'body' }
  | { readonly kind: 'json'; readonly json: string }
  | { readonly kind: 'none'; readonly reason: string };

/** Headers never stored: the signature is a secret-derived value, cookies are not ours. */
const UNKEPT_HEADERS = new Set(['x-signature', 'authorization', 'cookie', 'x-api-private-key']);

/** Whether the inbox keeps a header of this name (any case): what reads rows shows only these. */
export function isKeptHeader(name: string): boolean {
  return !UNKEPT_HEADERS.has(name.toLowerCase());
}

/** `payload` must be what JSON.parse reads from `rawBody` (parseJsonObject). */
export function buildDelivery(input: {
  channel: Channel;
  rawBody: Buffer;
  payload: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  sourceAddress: string | null;
}): Delivery {
  const bodySha256 = createHash('sha256').update(input.rawBody).digest('hex');
  const payloadSource = payloadSourceOf(input.rawBody, input.payload);
  // What jsonb cannot hold (U+0000, a lone surrogate, deep nesting) is kept as raw bytes and
  // quarantined, never refused and never a 5xx.
  const parsed =
    payloadSource.kind === 'none'
      ? ({ ok: false, reason: `body ${payloadSource.reason}` } as const)
      : parseNotification(input.channel, input.payload);
  return {
    channel: input.channel,
    rawBody: input.rawBody,
    payload: input.payload,
    payloadSource,
    headers: keptHeaders(input.headers),
    sourceAddress: input.sourceAddress,
    bodySha256,
    bodyBytes: input.rawBody.length,
    bodyTruncated: false,
    eventKey: parsed.ok
      ? eventKeyOf(parsed.notice)
      : quarantineKey(input.payload, payloadSource, bodySha256),
    notice: parsed.ok ? parsed.notice : null,
    quarantineReason: parsed.ok ? null : parsed.reason,
  };
}

/**
 * A quarantined delivery that keeps only its body's head (a webhook past the unauthenticated
 * byte budget): its digest, size, headers and dedupe key are the whole body's, its payload is
 * not kept.
 */
export function truncatedDelivery(delivery: Delivery): Delivery {
  const kept = keptBody(delivery.rawBody, 'head');
  if (!kept.truncated) return delivery;
  return {
    ...delivery,
    rawBody: kept.bytes,
    payloadSource: { kind: 'none', reason: 'not kept: only the first bytes of the body are' },
    bodyTruncated: true,
  };
}

/**
 * A delivery that cannot be understood is deduped on its compact JSON, so one captured signed
 * body re-sent with different whitespace is one quarantined row, not one per variant; on the
 * raw bytes only when even that cannot be made.
 */
function quarantineKey(
  payload: Record<string, unknown>,
  source: PayloadSource,
  bodySha256: string,
): string {
  let compact = source.kind === 'json' ? source.json : null;
  if (compact === null) {
    try {
      compact = JSON.stringify(payload) ?? null;
    } catch {
      compact = null; // nested too deep for the stack: the raw bytes it is
    }
  }
  return `sha256:${compact === null ? bodySha256 : createHash('sha256').update(compact).digest('hex')}`;
}

function payloadSourceOf(rawBody: Buffer, payload: Record<string, unknown>): PayloadSource {
  if (jsonbTakesAsIs(rawBody)) return { kind: 'body' };
  const text = jsonbText(payload);
  return text.ok ? { kind: 'json', json: text.json } : { kind: 'none', reason: text.reason };
}

function keptHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || UNKEPT_HEADERS.has(name)) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}
