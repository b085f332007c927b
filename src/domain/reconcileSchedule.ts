import { boletoDueDate, endOfBusinessDaysAfter } from './boletoDueDate.js';
import { isFinalSaleStatus, type PaymentMethod, type SaleStatus } from './saleMachine.js';
import { isFinalWithdrawalStatus, type WithdrawalStatus } from './withdrawalMachine.js';

/**
 * When the reconciler should next compare a mirror row with the gateway. Young
 * rows move fast and are checked often; older ones less. A paid sale stays under watch while
 * money can still come back: the MED window for PIX, the chargeback window for cards.
 */
export interface WatchPolicy {
  readonly medWindowDays: number;
  readonly chargebackWindowDays: number;
  /** Paid boleto and transfer sales: refunds come within this window. */
  readonly paidWatchDays: number;
  /** A pending PIX whose expiresAt paymirror does not know expires this long after creation. */
  readonly pixExpiryHours: number;
  /** A boleto whose code names no due date is due this long after creation. */
  readonly boletoExpiryDays: number;
  /**
   * Pending PIX and boleto sales are watched until expiry (a boleto: its due date plus 3
   * business days of compensation) plus this grace.
   */
  readonly pendingGraceHours: number;
  /**
   * Reads in a row that contradict a final status a signed postback or a confirmed webhook set,
   * after which the record is flagged for an operator.
   */
  readonly disagreeingReadsToFlag: number;
}

export const DEFAULT_WATCH_POLICY: WatchPolicy = {
  medWindowDays: 90,
  chargebackWindowDays: 180,
  paidWatchDays: 30,
  pixExpiryHours: 24,
  boletoExpiryDays: 3,
  pendingGraceHours: 24,
  disagreeingReadsToFlag: 3,
};

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Age of the row → time until its next check; past the last step, OLD_ROW_EVERY. */
const STEPS: readonly { readonly below: number; readonly every: number }[] = [
  { below: HOUR, every: 5 * MINUTE },
  { below: DAY, every: 30 * MINUTE },
  { below: 7 * DAY, every: 6 * HOUR },
  { below: 30 * DAY, every: DAY },
];
const OLD_ROW_EVERY = 3 * DAY;

export function checkIntervalFor(ageMs: number): number {
  return STEPS.find((step) => Math.max(0, ageMs) < step.below)?.every ?? OLD_ROW_EVERY;
}

export type WatchedRecord =
  | {
      readonly resource: 'sale';
      readonly status: SaleStatus;
      readonly paymentMethod: PaymentMethod;
      readonly createdAt: Date;
      readonly completedAt: Date | null;
      /** A PIX's expiry, when the gateway told it (the answer to paymirror's own sale). */
      readonly pixExpiresAt?: Date | null;
      /** A boleto's code: it carries the due date. */
      readonly boletoCode?: string | null;
    }
  | {
      readonly resource: 'withdrawal';
      readonly status: WithdrawalStatus;
      readonly createdAt: Date;
    };

/** The next check, or null when the row no longer needs one. */
export function nextReconcileAt(
  record: WatchedRecord,
  now: Date,
  policy: WatchPolicy = DEFAULT_WATCH_POLICY,
): Date | null {
  if (record.resource === 'withdrawal') {
    return isFinalWithdrawalStatus(record.status) ? null : after(now, record.createdAt, null);
  }
  if (isFinalSaleStatus(record.status)) return null;
  if (record.status === 'PAGO') {
    const since = record.completedAt ?? record.createdAt;
    return after(now, since, plus(since, paidWindowDays(record.paymentMethod, policy) * DAY));
  }
  if (record.status === 'PENDENTE' && record.paymentMethod === 'PIX') {
    const expiry = pixExpiry(record.createdAt, record.pixExpiresAt ?? null, policy);
    return after(now, record.createdAt, plus(expiry, policy.pendingGraceHours * HOUR));
  }
  if (record.status === 'PENDENTE' && record.paymentMethod === 'BOLETO') {
    const paidBy = boletoCompensatedBy(record.createdAt, record.boletoCode ?? null, policy);
    return after(now, record.createdAt, plus(paidBy, policy.pendingGraceHours * HOUR));
  }
  return after(now, record.createdAt, null);
}

/** When a pending PIX expires: its own expiresAt, else the gateway's default after creation. */
export function pixExpiry(createdAt: Date, expiresAt: Date | null, policy: WatchPolicy): Date {
  return expiresAt ?? plus(createdAt, policy.pixExpiryHours * HOUR);
}

/**
 * The last moment a boleto's payment can still be compensated: the end of the third business
 * day after its due date (read from its code; without one, `boletoExpiryDays` after creation).
 */
export function boletoCompensatedBy(
  createdAt: Date,
  boletoCode: string | null,
  policy: WatchPolicy,
): Date {
  const due =
    (boletoCode ? boletoDueDate(boletoCode, createdAt) : null) ??
    plus(createdAt, policy.boletoExpiryDays * DAY);
  return endOfBusinessDaysAfter(due, BOLETO_COMPENSATION_BUSINESS_DAYS);
}

const BOLETO_COMPENSATION_BUSINESS_DAYS = 3;

/** How long a paid sale of this method stays under watch: money can still come back. */
export function paidWindowDays(method: PaymentMethod, policy: WatchPolicy): number {
  if (method === 'PIX') return policy.medWindowDays;
  if (method === 'CREDIT_CARD' || method === 'DEBIT_CARD') return policy.chargebackWindowDays;
  return policy.paidWatchDays;
}

function after(now: Date, since: Date, watchUntil: Date | null): Date | null {
  if (watchUntil !== null && now >= watchUntil) return null;
  const next = plus(now, checkIntervalFor(now.getTime() - since.getTime()));
  return watchUntil === null ? next : new Date(Math.min(next.getTime(), watchUntil.getTime()));
}

function plus(date: Date, ms: number): Date {
  return new Date(date.getTime() + ms);
}
