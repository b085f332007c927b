import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Channel, Notice } from '../notifications/notification.js';
import { jsonbText } from '../notifications/jsonbSafe.js';
import { eventKeyOf, parseNotification } from '../notifications/parseNotification.js';

/** An authenticated delivery, ready to be stored in the inbox. */
export interface Delivery {
  readonly channel: Channel;
  readonly rawBody: Buffer;
  readonly payload: Record<string, unknown>;
  /** The payload as JSON text for the jsonb column; null when Postgres could not store it. */
  readonly payloadJson: string | null;
  readonly headers: Record<string, string>;
  readonly sourceAddress: string | null;
  readonly bodySha256: string;
  readonly eventKey: string;
  /** Set when paymirror understood the delivery; otherwise `quarantineReason` says why not. */
  readonly notice: Notice | null;
  readonly quarantineReason: string | null;
}

/** Headers never stored: the signature is a secret-derived value, cookies are not ours. */
const UNKEPT_HEADERS = new Set(['x-signature', 'authorization', 'cookie', 'x-api-private-key']);

export function buildDelivery(input: {
  channel: Channel;
  rawBody: Buffer;
  payload: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  sourceAddress: string | null;
}): Delivery {
  const bodySha256 = createHash('sha256').update(input.rawBody).digest('hex');
  // What jsonb cannot hold (U+0000, a lone surrogate, deep nesting) is kept as raw bytes and
  // quarantined, never refused and never a 5xx.
  const payload = jsonbText(input.payload);
  const payloadJson = payload.ok ? payload.json : null;
  const parsed = payload.ok
    ? parseNotification(input.channel, input.payload)
    : ({ ok: false, reason: `body ${payload.reason}` } as const);
  return {
    channel: input.channel,
    rawBody: input.rawBody,
    payload: input.payload,
    payloadJson,
    headers: keptHeaders(input.headers),
    sourceAddress: input.sourceAddress,
    bodySha256,
    eventKey: parsed.ok
      ? eventKeyOf(parsed.notice)
      : quarantineKey(input.payload, payloadJson, bodySha256),
    notice: parsed.ok ? parsed.notice : null,
    quarantineReason: parsed.ok ? null : parsed.reason,
  };
}

/**
 * A delivery that cannot be understood is deduped on its compact JSON, so one captured signed
 * body re-sent with different whitespace is one quarantined row, not one per variant; on the
 * raw bytes only when even that cannot be made.
 */
function quarantineKey(
  payload: Record<string, unknown>,
  payloadJson: string | null,
  bodySha256: string,
): string {
  let compact = payloadJson;
  if (compact === null) {
    try {
      compact = JSON.stringify(payload) ?? null;
    } catch {
      compact = null; // nested too deep for the stack: the raw bytes it is
    }
  }
  return `sha256:${compact === null ? bodySha256 : createHash('sha256').update(compact).digest('hex')}`;
}

function keptHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || UNKEPT_HEADERS.has(name)) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}
