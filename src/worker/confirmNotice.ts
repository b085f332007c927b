import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { sales } from '../db/schema.js';
import { decideSale, type PaymentMethod, type SaleStatus } from '../domain/saleMachine.js';
import type { GatewayClient, GatewayTransaction, GatewayWithdrawal } from '../gateway/types.js';
import { GatewayError } from '../gateway/gatewayError.js';
import type { Channel, Notice } from '../notifications/notification.js';

export type Confirmation =
  /** No GET needed (a signed postback on an unambiguous move) or no gateway keys. */
  | { readonly kind: 'none' }
  | { readonly kind: 'sale'; readonly record: GatewayTransaction; readonly readAt: Date }
  | { readonly kind: 'withdrawal'; readonly record: GatewayWithdrawal; readonly readAt: Date }
  /** The gateway does not know the record (404) or it is not ours (403). */
  | { readonly kind: 'forged'; readonly status: number };

/**
 * Asks the gateway for the truth about a notification when it must: always for an unsigned
 * webhook, and for a postback whose move is ambiguous (PAGO↔MED, PAGO↔CHARGEBACK). Runs
 * outside any transaction, so no lock is held during the HTTP call. A gateway that is down
 * throws, and the job retries: the notification is never dropped.
 */
export async function confirmNotice(
  db: Db,
  gateway: GatewayClient | null,
  channel: Channel,
  notice: Notice,
  now: () => Date,
): Promise<Confirmation> {
  if (!gateway) return { kind: 'none' };
  if (channel === 'postback' && !(await isAmbiguous(db, notice))) return { kind: 'none' };
  const readAt = now();
  try {
    return notice.kind === 'sale'
      ? { kind: 'sale', record: await gateway.getTransaction(notice.id), readAt }
      : { kind: 'withdrawal', record: await gateway.getWithdrawal(notice.id), readAt };
  } catch (error) {
    if (error instanceof GatewayError && error.isNotOurs) {
      return { kind: 'forged', status: error.status ?? 0 };
    }
    throw error;
  }
}

async function isAmbiguous(db: Db, notice: Notice): Promise<boolean> {
  if (notice.kind !== 'sale') return false;
  const [row] = await db
    .select({ status: sales.status, paymentMethod: sales.paymentMethod })
    .from(sales)
    .where(eq(sales.id, notice.id));
  if (!row) return false;
  const mirror = {
    status: row.status as SaleStatus,
    paymentMethod: row.paymentMethod as PaymentMethod,
  };
  return decideSale(mirror, notice).kind === 'confirm';
}
