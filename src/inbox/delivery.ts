import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Channel, Notice } from '../notifications/notification.js';
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
  const payloadJson = JSON.stringify(input.payload);
  // jsonb cannot hold U+0000: such a body is kept as raw bytes and quarantined, not refused.
  const storable = !payloadJson.includes('\\u0000');
  const parsed = storable
    ? parseNotification(input.channel, input.payload)
    : ({ ok: false, reason: 'body contains U+0000, which jsonb cannot store' } as const);
  return {
    channel: input.channel,
    rawBody: input.rawBody,
    payload: input.payload,
    payloadJson: storable ? payloadJson : null,
    headers: keptHeaders(input.headers),
    sourceAddress: input.sourceAddress,
    bodySha256,
    eventKey: parsed.ok ? eventKeyOf(parsed.notice) : `sha256:${bodySha256}`,
    notice: parsed.ok ? parsed.notice : null,
    quarantineReason: parsed.ok ? null : parsed.reason,
  };
}

function keptHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || UNKEPT_HEADERS.has(name)) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}
