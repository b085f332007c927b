import type { Sql } from '../../src/db/client.js';
import { databaseNow } from '../../src/db/clock.js';
import type { PaymentMethod, SaleStatus } from '../../src/domain/saleMachine.js';
import type { GatewayTransaction } from '../../src/gateway/types.js';
import type { MirrorInput, NoticeInput, Provenance } from '../../src/mirror/inputs.js';
import type { Notice, SaleNotice, WithdrawalNotice } from '../../src/notifications/notification.js';
import { parseNotification } from '../../src/notifications/parseNotification.js';
import { postbackBody, webhookSaleBody, withdrawalBody } from './fixtures.js';

/** Mirror inputs for tests that drive the one writer directly (writeMirror). */

type Cents = GatewayTransaction['amountCents'];

export function saleNotice(
  channel: 'postback' | 'webhook',
  sale: { id: number; status: SaleStatus; paymentMethod?: PaymentMethod; amount?: string },
  extra: Record<string, unknown> = {},
): SaleNotice {
  const body =
    channel === 'postback'
      ? postbackBody({ amount: '9900', ...sale, ...extra })
      : webhookSaleBody({ amount: '9900', ...sale, ...extra });
  const parsed = parseNotification(channel, body);
  if (!parsed.ok || parsed.notice.kind !== 'sale') throw new Error('fixture did not parse');
  return parsed.notice;
}

/** A withdrawal webhook as parsed (withdrawalBody's fields). */
export function withdrawalNotice(fields: Parameters<typeof withdrawalBody>[0]): WithdrawalNotice {
  const parsed = parseNotification('webhook', withdrawalBody(fields));
  if (!parsed.ok || parsed.notice.kind !== 'withdrawal') throw new Error('fixture did not parse');
  return parsed.notice;
}

export function noticeInput(
  notice: Notice,
  provenance: Provenance,
  observedAt: Date,
  ambiguity: NoticeInput['ambiguity'] = 'read',
  inboxEventId: number | null = null,
): MirrorInput {
  return {
    kind: 'notice',
    notice,
    provenance,
    observedAt,
    context: { source: provenance === 'signed' ? 'postback' : 'webhook', inboxEventId },
    ambiguity,
  };
}

export function saleRecord(
  id: number,
  status: SaleStatus,
  overrides: Partial<Omit<GatewayTransaction, 'id' | 'status'>> = {},
): GatewayTransaction {
  return {
    id,
    status,
    paymentMethod: 'PIX',
    amountCents: 9900 as Cents,
    netAmountCents: 9600 as Cents,
    systemFeeCents: 300 as Cents,
    reserveAmountCents: null,
    createdAt: new Date('2026-11-20T10:00:00.000Z'),
    completedAt: null,
    customerName: 'Maria da Silva',
    customerEmail: 'maria@example.com',
    customerDocument: null,
    customerPhone: null,
    items: [],
    pixCode: null,
    cardLastFour: null,
    cardBrand: null,
    boletoCode: null,
    externalTransactionId: null,
    installments: null,
    shipping: null,
    ...overrides,
  };
}

export function saleRead(
  record: GatewayTransaction,
  readAt: Date,
  purpose: 'reconcile' | 'confirmation' = 'reconcile',
): MirrorInput {
  return {
    kind: 'read',
    resource: 'sale',
    record,
    readAt,
    context: { source: purpose === 'reconcile' ? 'reconcile' : 'webhook', inboxEventId: null },
    purpose,
    runId: null,
  };
}

/** The database's clock, as the worker and the reconciler take it. */
export const dbNow = (sql: Sql): Promise<Date> => databaseNow(sql);
