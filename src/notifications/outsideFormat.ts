import type { Notice } from './notification.js';

/**
 * A value the notification formats do not list, though the read forms do (docs/gateway.md 6.3
 * and 6.5 against 2.1 and 2.2): FAILED as a withdrawal notification's status, TRANSFER as a
 * transaction notification's payment method. Applied all the same (the read form gives them a
 * meaning), but worth knowing: the gateway sent something its notification format does not say.
 */
export interface OutsideFormat {
  readonly field: 'status' | 'paymentMethod';
  readonly value: string;
}

export function outsideNotificationFormat(notice: Notice): OutsideFormat | null {
  if (notice.kind === 'withdrawal' && notice.status === 'FAILED') {
    return { field: 'status', value: notice.status };
  }
  if (notice.kind === 'sale' && notice.paymentMethod === 'TRANSFER') {
    return { field: 'paymentMethod', value: notice.paymentMethod };
  }
  return null;
}
