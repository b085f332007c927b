/**
 * The sale status machine of docs/gateway.md 3.1, as data, and the one function that judges a
 * move. Kept apart from paymirror's own (src/domain/saleMachine.ts) on purpose: the sandbox
 * plays the gateway, and a gateway that shared paymirror's code could not catch paymirror
 * misreading the spec. test/unit/machinesSideBySide.test.ts holds the two tables side by side,
 * so a divergence is a decision written there, not an accident.
 */
import { CARD_METHODS } from './vocabulary.js';
import type { PaymentMethod, SaleStatus } from './vocabulary.js';

export const SALE_EDGES: Readonly<Record<SaleStatus, readonly SaleStatus[]>> = {
  PENDENTE: ['PAGO', 'CANCELADO', 'FALHA', 'EM_PROCESSAMENTO'],
  EM_PROCESSAMENTO: ['PAGO', 'RECUSADO', 'FALHA'],
  PAGO: ['ESTORNADO', 'CHARGEBACK', 'MED'],
  FALHA: ['PAGO', 'CANCELADO'],
  CHARGEBACK: ['PAGO', 'ESTORNADO'],
  MED: ['PAGO', 'ESTORNADO'],
  CANCELADO: [],
  RECUSADO: [],
  ESTORNADO: [],
};

/** Statuses that only some payment methods can reach (docs/gateway.md 3.1). */
const METHODS_ALLOWED_INTO: Partial<Record<SaleStatus, readonly PaymentMethod[]>> = {
  EM_PROCESSAMENTO: CARD_METHODS,
  RECUSADO: CARD_METHODS,
  CHARGEBACK: CARD_METHODS,
  MED: ['PIX'],
};

export type SaleMoveVerdict =
  { readonly kind: 'allowed' } | { readonly kind: 'illegal'; readonly reason: string };

export function judgeSaleMove(
  method: PaymentMethod,
  from: SaleStatus,
  to: SaleStatus,
): SaleMoveVerdict {
  const allowedMethods = METHODS_ALLOWED_INTO[to];
  if (allowedMethods && !allowedMethods.includes(method)) {
    return {
      kind: 'illegal',
      reason: `${to} applies to ${allowedMethods.join(' or ')} sales only; this sale is ${method}`,
    };
  }
  const edges = SALE_EDGES[from];
  if (!edges.includes(to)) {
    const options =
      edges.length === 0 ? `${from} is final` : `allowed from ${from}: ${edges.join(', ')}`;
    return { kind: 'illegal', reason: `a sale cannot move from ${from} to ${to} (${options})` };
  }
  return { kind: 'allowed' };
}
