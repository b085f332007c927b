/**
 * How status moves change the seller's balance (docs/gateway.md 3.1; src/sandbox/README.md).
 *
 * - paid (from PENDENTE, EM_PROCESSAMENTO, FALHA): available += netAmount
 * - PAGO → MED or CHARGEBACK: netAmount moves from available to the reserve. The spec leaves
 *   chargeback blocking to the processor; the sandbox blocks like MED and applies no
 *   pre-chargeback fine (its amount is not shown).
 * - MED or CHARGEBACK → PAGO (won): the reserved amount returns to available.
 * - MED or CHARGEBACK → ESTORNADO (lost): the reserve is decremented; available is untouched.
 * - PAGO → ESTORNADO (refund): available -= netAmount. Available may go negative: the seller
 *   then owes the gateway, and cashouts fail with INSUFFICIENT_BALANCE until it recovers.
 * - cashout accepted: available -= amount; withdrawal REJECTED or CANCELLED: amount returns.
 */
import type { Cents } from '../../domain/money.js';
import type { SaleStatus, WithdrawalStatus } from './vocabulary.js';

export interface BalanceChange {
  readonly availableDelta: Cents;
  readonly reserveDelta: Cents;
  /** The sale's reserveAmount after the move. */
  readonly saleReserveCents: Cents;
}

const DISPUTES: readonly SaleStatus[] = ['MED', 'CHARGEBACK'];

export function saleBalanceChange(
  from: SaleStatus,
  to: SaleStatus,
  netAmountCents: Cents,
  saleReserveCents: Cents,
): BalanceChange {
  const disputed = DISPUTES.includes(from);
  if (to === 'PAGO' && disputed) {
    return {
      availableDelta: saleReserveCents,
      reserveDelta: -saleReserveCents,
      saleReserveCents: 0,
    };
  }
  if (to === 'PAGO') {
    return { availableDelta: netAmountCents, reserveDelta: 0, saleReserveCents: 0 };
  }
  if (from === 'PAGO' && DISPUTES.includes(to)) {
    return {
      availableDelta: -netAmountCents,
      reserveDelta: netAmountCents,
      saleReserveCents: netAmountCents,
    };
  }
  if (to === 'ESTORNADO' && disputed) {
    return { availableDelta: 0, reserveDelta: -saleReserveCents, saleReserveCents: 0 };
  }
  if (to === 'ESTORNADO' && from === 'PAGO') {
    return { availableDelta: -netAmountCents, reserveDelta: 0, saleReserveCents: 0 };
  }
  return { availableDelta: 0, reserveDelta: 0, saleReserveCents };
}

/** The balance change when a withdrawal reaches `to`; creation is handled at request time. */
export function withdrawalRefundCents(to: WithdrawalStatus, amountCents: Cents): Cents {
  return to === 'REJECTED' || to === 'CANCELLED' ? amountCents : 0;
}
