import { reachability } from './reachability.js';

/**
 * The sale status machine (docs/gateway.md 3.1) as data, plus the one decision the worker
 * and the reconciler ask of it: what to do with a notified status given the mirror's.
 */

export const SALE_STATUSES = [
  'PENDENTE',
  'EM_PROCESSAMENTO',
  'PAGO',
  'CANCELADO',
  'RECUSADO',
  'ESTORNADO',
  'FALHA',
  'CHARGEBACK',
  'MED',
] as const;
export type SaleStatus = (typeof SALE_STATUSES)[number];

export const PAYMENT_METHODS = ['PIX', 'CREDIT_CARD', 'DEBIT_CARD', 'BOLETO', 'TRANSFER'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export const SALE_EDGES: Readonly<Record<SaleStatus, readonly SaleStatus[]>> = Object.freeze({
  PENDENTE: Object.freeze(['PAGO', 'CANCELADO', 'FALHA', 'EM_PROCESSAMENTO'] as const),
  EM_PROCESSAMENTO: Object.freeze(['PAGO', 'RECUSADO', 'FALHA'] as const),
  PAGO: Object.freeze(['ESTORNADO', 'CHARGEBACK', 'MED'] as const),
  CANCELADO: Object.freeze([] as const),
  RECUSADO: Object.freeze([] as const),
  ESTORNADO: Object.freeze([] as const),
  FALHA: Object.freeze(['PAGO', 'CANCELADO'] as const),
  CHARGEBACK: Object.freeze(['PAGO', 'ESTORNADO'] as const),
  MED: Object.freeze(['PAGO', 'ESTORNADO'] as const),
});

export const SALE_FINAL_STATUSES: ReadonlySet<SaleStatus> = new Set(
  SALE_STATUSES.filter((s) => SALE_EDGES[s].length === 0),
);

export function isFinalSaleStatus(status: SaleStatus): boolean {
  return SALE_FINAL_STATUSES.has(status);
}

const CARD_METHODS: ReadonlySet<PaymentMethod> = new Set(['CREDIT_CARD', 'DEBIT_CARD']);

/**
 * docs/gateway.md 3.1: MED applies only to PIX; CHARGEBACK, and the processor's states
 * EM_PROCESSAMENTO and RECUSADO, only to card payments.
 */
export function isSaleStatusAllowed(method: PaymentMethod, status: SaleStatus): boolean {
  if (status === 'MED') return method === 'PIX';
  if (CARD_ONLY.has(status)) return CARD_METHODS.has(method);
  return true;
}

const CARD_ONLY: ReadonlySet<SaleStatus> = new Set(['CHARGEBACK', 'EM_PROCESSAMENTO', 'RECUSADO']);

type Reach = Readonly<Record<SaleStatus, ReadonlySet<SaleStatus>>>;

/** Statuses reachable in one or more edges, on the graph without the edges `method` forbids. */
function reachFor(method: PaymentMethod): Reach {
  return reachability(SALE_STATUSES, (s) =>
    SALE_EDGES[s].filter((t) => isSaleStatusAllowed(method, t)),
  );
}

const REACH: ReadonlyMap<PaymentMethod, Reach> = new Map(
  PAYMENT_METHODS.map((m) => [m, reachFor(m)] as const),
);

/** True when `to` can follow `from` (directly or through missed steps) for a `method` sale. */
export function canReachSale(method: PaymentMethod, from: SaleStatus, to: SaleStatus): boolean {
  return REACH.get(method)?.[from].has(to) ?? false;
}

export type SaleDecision =
  | { kind: 'insert' }
  | { kind: 'apply'; from: SaleStatus; to: SaleStatus }
  | { kind: 'noop' }
  | { kind: 'stale'; reason: string }
  | { kind: 'invalid'; reason: string }
  | { kind: 'confirm'; from: SaleStatus; to: SaleStatus };

export type SaleFacts = { status: SaleStatus; paymentMethod: PaymentMethod };

export function decideSale(mirror: SaleFacts | null, notified: SaleFacts): SaleDecision {
  // The stored method wins: a notification cannot make a card sale eligible for MED.
  const method = mirror?.paymentMethod ?? notified.paymentMethod;
  const to = notified.status;
  if (!isSaleStatusAllowed(method, to)) {
    return { kind: 'invalid', reason: `${to} is impossible on a ${method} sale` };
  }
  if (mirror === null) return { kind: 'insert' };
  const from = mirror.status;
  if (from === to) return { kind: 'noop' };
  // On a cycle (PAGO↔MED, PAGO↔CHARGEBACK) a late delivery and a real move look alike.
  if (canReachSale(method, from, to) && canReachSale(method, to, from)) {
    return { kind: 'confirm', from, to };
  }
  if (isFinalSaleStatus(from)) return { kind: 'stale', reason: `${from} is final` };
  if (canReachSale(method, from, to)) return { kind: 'apply', from, to };
  return { kind: 'stale', reason: `${to} cannot follow ${from} on a ${method} sale` };
}
