/**
 * Turns status moves into notifications (docs/gateway.md 6): transaction notifications on both
 * channels for the statuses of 6.2, withdrawal notifications on the permanent webhook
 * for the statuses of 6.5. Bodies are serialised once, here, as compact JSON; the
 * postback signature is computed over exactly those bytes.
 */
import type { OutgoingNotification } from './delivery/dispatcher.js';
import type { FaultInjector } from './delivery/faults.js';
import { forgePostbackSignature, signPostbackBody } from './delivery/postbackSignature.js';
import type { SaleRecord, WithdrawalRecord } from './domain/records.js';
import type { SaleStatus, WithdrawalStatus } from './domain/vocabulary.js';
import type { StoreListener } from './store.js';
import {
  postbackTransactionNotification,
  webhookTransactionNotification,
} from './wire/transactionNotification.js';
import { withdrawalNotification } from './wire/withdrawal.js';

const NOTIFIED_SALE_STATUSES: readonly SaleStatus[] = [
  'PAGO',
  'CANCELADO',
  'RECUSADO',
  'ESTORNADO',
  'FALHA',
  'CHARGEBACK',
  'MED',
];

const NOTIFIED_WITHDRAWAL_STATUSES: readonly WithdrawalStatus[] = [
  'PROCESSING',
  'COMPLETED',
  'REJECTED',
  'CANCELLED',
];

const USER_AGENT = 'paymirror-sandbox/1';

interface NotificationTargets {
  /** Read at each move: the control API can change them at any time. */
  webhookUrl(): string | null;
  postbackSecret(): string;
}

export interface NotifierDeps {
  readonly userId: number;
  readonly user: { readonly name: string; readonly email: string };
  readonly targets: NotificationTargets;
  readonly faults: FaultInjector;
  readonly send: (notification: OutgoingNotification) => void;
}

export function createNotifier(deps: NotifierDeps): StoreListener {
  function sendUnsigned(
    url: string,
    resource: 'sale' | 'withdrawal',
    id: number,
    status: string,
    payload: object,
  ): void {
    deps.send({
      channel: 'webhook',
      url,
      body: JSON.stringify(payload),
      headers: { 'Content-Type': 'application/json', 'User-Agent': USER_AGENT },
      signature: null,
      resource,
      resourceId: id,
      notifiedStatus: status,
      faults: [],
    });
  }

  function sendPostback(sale: SaleRecord, url: string): void {
    const body = JSON.stringify(postbackTransactionNotification(sale));
    const secret = deps.targets.postbackSecret();
    const forged = deps.faults.strikes('badSignature');
    const signature = forged
      ? forgePostbackSignature(secret, body)
      : signPostbackBody(secret, body);
    deps.send({
      channel: 'postback',
      url,
      body,
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': USER_AGENT,
        'X-Signature': signature,
      },
      signature,
      resource: 'sale',
      resourceId: sale.id,
      notifiedStatus: sale.status,
      faults: forged ? ['badSignature'] : [],
    });
  }

  return {
    saleStatusChanged(sale) {
      if (sale.ownerUserId !== deps.userId || !NOTIFIED_SALE_STATUSES.includes(sale.status)) return;
      const webhookUrl = deps.targets.webhookUrl();
      if (webhookUrl !== null) {
        sendUnsigned(
          webhookUrl,
          'sale',
          sale.id,
          sale.status,
          webhookTransactionNotification(sale),
        );
      }
      if (sale.postbackUrl !== null) sendPostback(sale, sale.postbackUrl);
    },
    withdrawalStatusChanged(withdrawal: WithdrawalRecord) {
      if (
        withdrawal.ownerUserId !== deps.userId ||
        !NOTIFIED_WITHDRAWAL_STATUSES.includes(withdrawal.status)
      )
        return;
      const webhookUrl = deps.targets.webhookUrl();
      if (webhookUrl === null) return;
      const payload = withdrawalNotification(withdrawal, deps.user);
      sendUnsigned(webhookUrl, 'withdrawal', withdrawal.id, withdrawal.status, payload);
    },
  };
}
