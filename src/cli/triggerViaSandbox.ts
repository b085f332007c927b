import { z } from 'zod';
import { SALE_AMOUNT_CENTS, WITHDRAWAL_AMOUNT_REAIS, type TriggerEvent } from './triggerEvents.js';
import { TriggerError } from './triggerSend.js';

/** One move the sandbox made; it delivers the notifications itself. */
export interface SandboxMove {
  readonly resource: string;
  readonly from: string;
  readonly to: string;
}

export interface SandboxTarget {
  readonly baseUrl: string;
  readonly publicKey: string;
  readonly privateKey: string;
  /** paymirror's URL, for the sale's postbackUrl and, when the sandbox has none, its webhook. */
  readonly paymirrorUrl: string;
  readonly webhookToken: string | null;
}

const stateSchema = z.object({
  config: z.object({ webhookUrl: z.string().nullable().optional() }).loose(),
  balance: z.object({ availableCents: z.number().int() }).loose(),
});
const createdSaleSchema = z.object({
  sale: z.object({ id: z.number().int(), status: z.string() }),
});
const createdWithdrawalSchema = z.object({ id: z.number().int(), status: z.string() });
const movedSchema = z.object({ from: z.string(), to: z.string() });

/**
 * Makes a running sandbox gateway (GATEWAY_BASE_URL) create the record and move it through the
 * event's steps: the sandbox then delivers its own notifications on both channels, signed with
 * its postback secret, and answers paymirror's GETs when it confirms a webhook.
 */
export async function runViaSandbox(
  event: TriggerEvent,
  target: SandboxTarget,
  onMove: (move: SandboxMove) => void,
): Promise<{ resource: string; id: number; moves: SandboxMove[] }> {
  const call = sandboxCaller(target);
  const state = stateSchema.parse(await call('GET', '/_sandbox/state'));
  if (!state.config.webhookUrl && target.webhookToken) {
    await call('POST', '/_sandbox/config', {
      webhookUrl: `${target.paymirrorUrl}/webhooks/${target.webhookToken}`,
    });
  }
  let id: number;
  let path: string;
  if (event.kind === 'sale') {
    const created = createdSaleSchema.parse(
      await call('POST', '/api/sales', {
        amount: SALE_AMOUNT_CENTS,
        paymentMethod: event.method,
        customer: {
          name: 'Maria Silva',
          email: 'maria.silva@example.com',
          document: '12345678909',
          phone: '11987654321',
        },
        items: [{ title: 'Curso de fotografia', unitPrice: SALE_AMOUNT_CENTS, quantity: 1 }],
        postbackUrl: `${target.paymirrorUrl}/postbacks`,
        ...(event.method === 'CREDIT_CARD' ? { card: { lastFour: '1111', brand: 'VISA' } } : {}),
      }),
    );
    id = created.sale.id;
    path = `/_sandbox/sales/${id}/status`;
  } else {
    const cents = Math.round(Number(WITHDRAWAL_AMOUNT_REAIS) * 100);
    await call('POST', '/_sandbox/balance', {
      availableCents: state.balance.availableCents + cents,
    });
    const created = createdWithdrawalSchema.parse(
      await call('POST', '/api/public/cashout', {
        amount: Number(WITHDRAWAL_AMOUNT_REAIS),
        pixKey: 'maria.silva@example.com',
        pixKeyType: 'EMAIL',
      }),
    );
    id = created.id;
    path = `/_sandbox/withdrawals/${id}/status`;
  }
  const resource = `${event.kind}:${id}`;
  const moves: SandboxMove[] = [];
  for (const status of event.steps) {
    const moved = movedSchema.parse(await call('POST', path, { status }));
    const move = { resource, from: moved.from, to: moved.to };
    moves.push(move);
    onMove(move);
  }
  return { resource, id, moves };
}

function sandboxCaller(target: SandboxTarget) {
  return async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> => {
    let response: Response;
    try {
      response = await fetch(`${target.baseUrl}${path}`, {
        method,
        headers: {
          'content-type': 'application/json',
          'x-api-public-key': target.publicKey,
          'x-api-private-key': target.privateKey,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      throw new TriggerError(
        `no sandbox answers at ${target.baseUrl} (GATEWAY_BASE_URL): start one with paymirror sandbox`,
      );
    }
    const text = await response.text();
    if (!response.ok) {
      throw new TriggerError(
        `the sandbox answered ${response.status} to ${method} ${path}: ${text}`,
      );
    }
    return JSON.parse(text) as unknown;
  };
}
