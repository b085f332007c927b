/**
 * The sandbox's in-memory records and the seller's balance. Every status move goes through
 * here: it asks the machine (domain/*-machine.ts), applies the balance effect
 * (domain/ledger.ts) and tells the listener, which turns moves into notifications.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Cents } from '../domain/money.js';
import { decideCashout } from './domain/cashoutDecision.js';
import type { CashoutDecision } from './domain/cashoutDecision.js';
import { cashoutFees } from './domain/fees.js';
import { saleBalanceChange, withdrawalRefundCents } from './domain/ledger.js';
import type { SaleRecord, WithdrawalRecord } from './domain/records.js';
import { judgeSaleMove } from './domain/saleMachine.js';
import { isCardMethod } from './domain/vocabulary.js';
import type { PixKeyType, SaleStatus, WithdrawalStatus } from './domain/vocabulary.js';
import { isSettledWithdrawalStatus, judgeWithdrawalMove } from './domain/withdrawalMachine.js';
import type { SaleCreateRequest } from './requests.js';
import { buildSale } from './saleFactory.js';

export interface StoreListener {
  saleStatusChanged(sale: SaleRecord, from: SaleStatus): void;
  withdrawalStatusChanged(withdrawal: WithdrawalRecord, from: WithdrawalStatus): void;
}

export interface StoreDeps {
  readonly userId: number;
  readonly initialBalanceCents: Cents;
  readonly firstId: number;
  readonly pixExpiryMs: number | null;
  readonly merchantName: string;
  readonly now: () => Date;
  readonly listener: StoreListener;
}

export type MoveResult<T, S> =
  | { readonly kind: 'moved'; readonly record: T; readonly from: S }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'illegal'; readonly reason: string };

type CashoutResult =
  | { readonly kind: 'created'; readonly withdrawal: WithdrawalRecord }
  | Extract<CashoutDecision, { kind: 'refuse' }>;

interface CashoutInput {
  readonly amountCents: Cents;
  readonly pixKey: string;
  readonly pixKeyType: PixKeyType;
}

export interface SandboxStore {
  readonly sales: ReadonlyMap<number, SaleRecord>;
  readonly withdrawals: ReadonlyMap<number, WithdrawalRecord>;
  availableCents(): Cents;
  reserveCents(): Cents;
  setAvailableCents(cents: Cents): void;
  /** Resolves with the sale as created (PENDENTE), before a card sale goes to the processor. */
  createSale(ownerUserId: number, request: SaleCreateRequest): Promise<SaleRecord>;
  moveSale(id: number, to: SaleStatus): MoveResult<SaleRecord, SaleStatus>;
  requestCashout(ownerUserId: number, input: CashoutInput): CashoutResult;
  moveWithdrawal(id: number, to: WithdrawalStatus): MoveResult<WithdrawalRecord, WithdrawalStatus>;
  close(): void;
}

/** A PIX end-to-end id as the banking provider would assign: E + ISPB + time + 11 chars. */
function bankEndToEndId(at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/[^0-9]/g, '')
    .slice(0, 12);
  return `E99999999${stamp}${randomBytes(8).toString('hex').slice(0, 11).toUpperCase()}`;
}

export function createStore(deps: StoreDeps): SandboxStore {
  const sales = new Map<number, SaleRecord>();
  const withdrawals = new Map<number, WithdrawalRecord>();
  const pixExpiryTimers = new Map<number, NodeJS.Timeout>();
  let available = deps.initialBalanceCents;
  let reserve = 0;
  let nextSaleId = deps.firstId;
  let nextWithdrawalId = deps.firstId;
  let nextItemId = deps.firstId;
  const merchantPixKey = randomUUID();

  function cancelPixExpiry(saleId: number): void {
    const timer = pixExpiryTimers.get(saleId);
    if (timer === undefined) return;
    clearTimeout(timer);
    pixExpiryTimers.delete(saleId);
  }

  function schedulePixExpiry(sale: SaleRecord): void {
    if (!sale.pix?.expiresAt) return;
    const delay = Math.max(0, sale.pix.expiresAt.getTime() - deps.now().getTime());
    const timer = setTimeout(() => {
      pixExpiryTimers.delete(sale.id);
      if (sale.status === 'PENDENTE') moveSale(sale.id, 'CANCELADO');
    }, delay);
    timer.unref();
    pixExpiryTimers.set(sale.id, timer);
  }

  function moveSale(id: number, to: SaleStatus): MoveResult<SaleRecord, SaleStatus> {
    const sale = sales.get(id);
    if (!sale) return { kind: 'not_found' };
    const verdict = judgeSaleMove(sale.paymentMethod, sale.status, to);
    if (verdict.kind === 'illegal') return verdict;

    const from = sale.status;
    const change = saleBalanceChange(from, to, sale.netAmountCents, sale.reserveAmountCents);
    if (sale.ownerUserId === deps.userId) {
      available += change.availableDelta;
      reserve += change.reserveDelta;
    }
    const now = deps.now();
    sale.reserveAmountCents = change.saleReserveCents;
    sale.status = to;
    sale.updatedAt = now;
    if (to === 'PAGO' && sale.completedAt === null) sale.completedAt = now;
    cancelPixExpiry(id);
    deps.listener.saleStatusChanged(sale, from);
    return { kind: 'moved', record: sale, from };
  }

  /** updatedAt strictly increases per record, so receivers can order by it. */
  function nextUpdatedAt(previous: Date): Date {
    const now = deps.now();
    return now.getTime() > previous.getTime() ? now : new Date(previous.getTime() + 1);
  }

  return {
    sales,
    withdrawals,
    availableCents: () => available,
    reserveCents: () => reserve,
    setAvailableCents(cents) {
      available = cents;
    },
    async createSale(ownerUserId, request) {
      const id = nextSaleId++;
      const sale = await buildSale(id, ownerUserId, request, {
        now: deps.now,
        merchantPixKey,
        merchantName: deps.merchantName,
        pixExpiryMs: deps.pixExpiryMs,
        nextItemId: () => nextItemId++,
      });
      sales.set(id, sale);
      const asCreated = structuredClone(sale);
      schedulePixExpiry(sale);
      // Card payments go to the processor at once (docs/gateway.md 3.1); no notification for this
      // move.
      if (isCardMethod(sale.paymentMethod)) moveSale(id, 'EM_PROCESSAMENTO');
      return asCreated;
    },
    moveSale,
    requestCashout(ownerUserId, input) {
      const decision = decideCashout(input.amountCents, available);
      if (decision.kind === 'refuse') return decision;
      const fees = cashoutFees(input.amountCents);
      const createdAt = deps.now();
      const withdrawal: WithdrawalRecord = {
        id: nextWithdrawalId++,
        ownerUserId,
        status: 'PENDING',
        amountCents: input.amountCents,
        netAmountCents: fees.netAmountCents,
        feeFixedCents: fees.fixedCents,
        feeVariableCents: fees.variableCents,
        feeTotalCents: fees.totalCents,
        pixKey: input.pixKey,
        pixKeyType: input.pixKeyType,
        externalId: null,
        createdAt,
        updatedAt: createdAt,
        processedAt: null,
      };
      withdrawals.set(withdrawal.id, withdrawal);
      available -= input.amountCents;
      return { kind: 'created', withdrawal };
    },
    moveWithdrawal(id, to) {
      const withdrawal = withdrawals.get(id);
      if (!withdrawal) return { kind: 'not_found' };
      const verdict = judgeWithdrawalMove(withdrawal.status, to);
      if (verdict.kind === 'illegal') return verdict;

      const from = withdrawal.status;
      const updatedAt = nextUpdatedAt(withdrawal.updatedAt);
      withdrawal.status = to;
      withdrawal.updatedAt = updatedAt;
      // A transfer cancelled before the bank saw it has no bank id.
      if (withdrawal.externalId === null && !(to === 'CANCELLED' && from === 'PENDING')) {
        withdrawal.externalId = bankEndToEndId(updatedAt);
      }
      if (isSettledWithdrawalStatus(to)) withdrawal.processedAt = updatedAt;
      available += withdrawalRefundCents(to, withdrawal.amountCents);
      deps.listener.withdrawalStatusChanged(withdrawal, from);
      return { kind: 'moved', record: withdrawal, from };
    },
    close() {
      for (const timer of pixExpiryTimers.values()) clearTimeout(timer);
      pixExpiryTimers.clear();
    },
  };
}
