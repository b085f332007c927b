import type { SaleRow, WithdrawalRow } from '../../src/db/rows.js';
import type { GatewayTransaction, GatewayWithdrawal } from '../../src/gateway/types.js';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import type { FieldDifference } from '../../src/mirror/compareFields.js';
import type { ChangeContext } from '../../src/mirror/inputs.js';
import type { MirrorRows } from '../../src/mirror/mirrorRows.js';
import type { PlanContext } from '../../src/mirror/planContext.js';
import type { Fields } from '../../src/mirror/resource.js';
import type { SaleNotice, WithdrawalNotice } from '../../src/notifications/notification.js';

/**
 * The planners' collaborators in memory, for pure unit tests (no Postgres): the rows they read
 * and write, and the side writes (history, items, discrepancies) they gather.
 */

export const NOW = new Date('2026-03-10T12:00:00.000Z');
export const CREATED = new Date('2026-03-10T11:00:00.000Z');
export const EARLIER = new Date('2026-03-10T11:30:00.000Z');
export const LATER = new Date('2026-03-10T11:45:00.000Z');

export class FakeRows<Row extends { readonly id: number }> {
  readonly inserted = new Map<number, Fields>();
  readonly updates: { id: number; fields: Fields }[] = [];
  private readonly current = new Map<number, Row>();

  constructor(...rows: Row[]) {
    for (const row of rows) this.current.set(row.id, row);
  }

  get(id: number): Row | undefined {
    return this.current.get(id);
  }

  insert(id: number, values: Fields): void {
    this.inserted.set(id, values);
  }

  update(id: number, fields: Fields): void {
    this.updates.push({ id, fields });
  }

  /** Everything written to `id` by update, merged. */
  written(id: number): Fields {
    return Object.assign({}, ...this.updates.filter((u) => u.id === id).map((u) => u.fields));
  }

  asRows(): MirrorRows<Row> {
    return this as unknown as MirrorRows<Row>;
  }
}

export interface HistoryEntry {
  resource: string;
  id: number;
  from: string | null;
  to: string;
  context: ChangeContext;
  entered: boolean;
  observedAt: Date;
}

export class FakeWrites {
  readonly history: HistoryEntry[] = [];
  readonly items: { rows: readonly object[]; from: string }[] = [];
  readonly discrepancies: {
    resource: string;
    id: number;
    differences: readonly FieldDifference[];
    record: object;
  }[] = [];
  private readonly seen = new Set<string>();

  /** A status already in a record's history. */
  see(resource: string, id: number, status: string): this {
    this.seen.add(`${resource}:${id}:${status}`);
    return this;
  }

  hasSeen(resource: string, id: number, status: string): boolean {
    return this.seen.has(`${resource}:${id}:${status}`);
  }

  addHistory(entry: HistoryEntry): void {
    this.see(entry.resource, entry.id, entry.to);
    this.history.push(entry);
  }

  addItems(rows: readonly object[], from: string): void {
    this.items.push({ rows, from });
  }

  addDiscrepancies(
    resource: string,
    id: number,
    differences: readonly FieldDifference[],
    record: object,
  ): void {
    // As MirrorWrites: one row per difference, so an empty list writes nothing.
    if (differences.length === 0) return;
    this.discrepancies.push({ resource, id, differences, record });
  }
}

export function planContext(writes: FakeWrites): PlanContext {
  return {
    watch: { now: NOW, policy: DEFAULT_WATCH_POLICY },
    writes: writes as unknown as PlanContext['writes'],
  };
}

export function saleRow(overrides: Partial<SaleRow> = {}): SaleRow {
  return {
    id: 7,
    status: 'PENDENTE',
    paymentMethod: 'PIX',
    amountCents: 15_050,
    netAmountCents: null,
    systemFeeCents: null,
    feeCents: null,
    reserveAmountCents: null,
    installments: null,
    customerName: null,
    customerEmail: null,
    customerDocument: null,
    customerPhone: null,
    pixCode: null,
    boletoCode: null,
    cardLastFour: null,
    cardBrand: null,
    externalTransactionId: null,
    shipping: null,
    createdAt: CREATED,
    completedAt: null,
    pixExpiresAt: null,
    statusObservedAt: EARLIER,
    gatewayReadAt: null,
    statusSetBy: null,
    disagreeingReads: 0,
    flaggedAt: null,
    flagReason: null,
    deniedAt: null,
    denialReadAt: null,
    ...overrides,
  } as SaleRow;
}

export function withdrawalRow(overrides: Partial<WithdrawalRow> = {}): WithdrawalRow {
  return {
    id: 31,
    status: 'PENDING',
    amountCents: 15_050,
    netAmountCents: null,
    feeFixedCents: null,
    feeVariableCents: null,
    feeTotalCents: null,
    pixKey: null,
    pixKeyType: null,
    externalId: null,
    processedAt: null,
    createdAt: CREATED,
    gatewayUpdatedAt: EARLIER,
    statusObservedAt: EARLIER,
    gatewayReadAt: null,
    statusSetBy: null,
    disagreeingReads: 0,
    flaggedAt: null,
    flagReason: null,
    deniedAt: null,
    denialReadAt: null,
    ...overrides,
  } as WithdrawalRow;
}

export function saleNotice(overrides: Partial<SaleNotice> = {}): SaleNotice {
  return {
    kind: 'sale',
    id: 7,
    status: 'PAGO',
    paymentMethod: 'PIX',
    amountCents: 15_050,
    createdAt: CREATED,
    customerName: 'Ana',
    customerEmail: 'ana@x.com',
    customerDocument: null,
    customerPhone: null,
    pixCode: 'pix-code',
    boletoCode: null,
    shipping: undefined,
    items: [{ itemId: 1, title: 'Camiseta', unitPriceCents: 15_050, quantity: 1, tangible: true }],
    feeCents: null,
    externalTransactionId: 'ext-7',
    ...overrides,
  };
}

export function withdrawalNotice(overrides: Partial<WithdrawalNotice> = {}): WithdrawalNotice {
  return {
    kind: 'withdrawal',
    id: 31,
    status: 'COMPLETED',
    amountCents: 15_050,
    pixKey: 'ana@x.com',
    pixKeyType: 'EMAIL',
    externalId: 'bank-31',
    createdAt: CREATED,
    updatedAt: LATER,
    processedAt: LATER,
    ...overrides,
  };
}

/** A sale as a gateway read answers it, every optional field given. */
export function gatewayTransaction(
  overrides: Partial<GatewayTransaction> = {},
): GatewayTransaction {
  return {
    id: 7,
    status: 'PAGO',
    paymentMethod: 'PIX',
    amountCents: 15_050,
    netAmountCents: 14_000,
    systemFeeCents: 1_050,
    reserveAmountCents: 300,
    createdAt: CREATED,
    completedAt: EARLIER,
    customerName: 'Ana',
    customerEmail: 'ana@x.com',
    customerDocument: '123',
    customerPhone: '+55',
    items: [{ itemId: 1, title: 'Camiseta', unitPriceCents: 15_050, quantity: 1, tangible: true }],
    pixCode: 'pix-code',
    cardLastFour: null,
    cardBrand: null,
    boletoCode: null,
    externalTransactionId: 'ext-7',
    installments: 1,
    shipping: { city: 'Recife' },
    ...overrides,
  };
}

/** A withdrawal as a gateway read answers it; its fees add up. */
export function gatewayWithdrawal(overrides: Partial<GatewayWithdrawal> = {}): GatewayWithdrawal {
  return {
    id: 31,
    status: 'PROCESSING',
    amountCents: 15_050,
    netAmountCents: 14_605,
    feeFixedCents: 200,
    feeVariableCents: 245,
    feeTotalCents: 445,
    pixKey: 'ana@x.com',
    pixKeyType: 'EMAIL',
    createdAt: CREATED,
    updatedAt: LATER,
    ...overrides,
  };
}
