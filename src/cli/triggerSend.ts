import { createHmac } from 'node:crypto';
import {
  salePostback,
  saleWebhook,
  withdrawalWebhook,
  type TriggerEvent,
} from './triggerEvents.js';

/** One notification `trigger` sent and what paymirror answered. */
export interface Sent {
  readonly channel: 'postback' | 'webhook';
  /** The path, the webhook token written as `:token` (the URL is a secret). */
  readonly path: string;
  readonly resource: string;
  readonly status: string;
  readonly httpStatus: number;
  readonly answer: unknown;
  readonly body: Record<string, unknown>;
}

export class TriggerError extends Error {
  override readonly name = 'TriggerError';
}

export interface DirectTarget {
  readonly url: string;
  readonly postbackSecret: string | null;
  readonly webhookToken: string | null;
  readonly userId: number;
  readonly channel: 'postback' | 'webhook';
}

/** How long a repeated status (PAGO after MED) waits for the step before it to be applied. */
const REPEAT_TRIES = 40;
const REPEAT_PAUSE_MS = 250;

/**
 * Sends an event's notifications to paymirror as the gateway would, one after the other. A
 * status seen earlier in the event (MED won: PAGO, MED, PAGO) shares its dedupe key with the
 * first one, and is new only once the step before it is applied: until then paymirror answers
 * `duplicate`, and it is sent again.
 */
export async function sendDirect(
  event: TriggerEvent,
  id: number,
  target: DirectTarget,
  onSent: (sent: Sent) => void,
): Promise<Sent[]> {
  const channel = event.kind === 'withdrawal' ? 'webhook' : target.channel;
  const createdAt = new Date(Date.now() - 60_000);
  const results: Sent[] = [];
  for (const [index, status] of event.steps.entries()) {
    const body =
      event.kind === 'withdrawal'
        ? withdrawalWebhook({
            id,
            userId: target.userId,
            status,
            createdAt,
            updatedAt: new Date(createdAt.getTime() + 1000 * (index + 1)),
          })
        : (channel === 'postback' ? salePostback : saleWebhook)({
            id,
            userId: target.userId,
            status,
            method: event.method,
            createdAt,
          });
    const repeated = event.steps.slice(0, index).includes(status);
    let sent = await post(target, channel, body, `${event.kind}:${id}`, status);
    for (let tries = 1; repeated && isDuplicate(sent) && tries < REPEAT_TRIES; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, REPEAT_PAUSE_MS));
      sent = await post(target, channel, body, `${event.kind}:${id}`, status);
    }
    results.push(sent);
    onSent(sent);
    if (sent.httpStatus !== 200) throw new TriggerError(refusal(sent));
  }
  return results;
}

function isDuplicate(sent: Sent): boolean {
  return (sent.answer as { status?: unknown } | null)?.status === 'duplicate';
}

async function post(
  target: DirectTarget,
  channel: 'postback' | 'webhook',
  body: Record<string, unknown>,
  resource: string,
  status: string,
): Promise<Sent> {
  const raw = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  let path = '/postbacks';
  if (channel === 'postback') {
    if (!target.postbackSecret) throw new TriggerError(noSecret('POSTBACK_SECRETS'));
    headers['x-signature'] = createHmac('sha256', target.postbackSecret).update(raw).digest('hex');
  } else {
    if (!target.webhookToken) throw new TriggerError(noSecret('WEBHOOK_TOKENS'));
    path = `/webhooks/${target.webhookToken}`;
  }
  let response: Response;
  try {
    response = await fetch(`${target.url}${path}`, { method: 'POST', body: raw, headers });
  } catch {
    throw new TriggerError(
      `nothing answers at ${target.url}: is paymirror running? (trigger sends to PORT on this host, or to --url)`,
    );
  }
  const text = await response.text();
  let answer: unknown = text;
  try {
    answer = JSON.parse(text);
  } catch {
    // Not JSON (a 401 has no body): kept as text.
  }
  return {
    channel,
    path: channel === 'webhook' ? '/webhooks/:token' : path,
    resource,
    status,
    httpStatus: response.status,
    answer,
    body,
  };
}

function noSecret(setting: string): string {
  return (
    `no ${setting} to send with: set it as the running paymirror has it, or start paymirror ` +
    'once in development (it keeps what it makes up in .paymirror/dev.env)'
  );
}

function refusal(sent: Sent): string {
  const hint: Record<number, string> = {
    401: 'the signature does not verify: paymirror runs with other POSTBACK_SECRETS',
    403: 'refused: SELLER_USER_ID differs from the userId sent (or the source is not allowed)',
    404: 'unknown webhook token: paymirror runs with other WEBHOOK_TOKENS',
  };
  return `paymirror answered ${sent.httpStatus} to ${sent.resource} ${sent.status}: ${
    hint[sent.httpStatus] ?? JSON.stringify(sent.answer)
  }`;
}
