/**
 * Sandbox truth vs mirror: per status (count and centavo sum on each side) and per record
 * (missing, unexpected, or a field that differs). Pure: the snapshots come from snapshot.ts.
 */
import type { Cents } from '../domain/money.js';
import { SALE_STATUSES } from '../domain/saleMachine.js';
import { WITHDRAWAL_STATUSES } from '../domain/withdrawalMachine.js';

type Resource = 'sale' | 'withdrawal';

interface RecordView {
  readonly id: number;
  readonly status: string;
  readonly amountCents: Cents;
  /** Sales only. */
  readonly paymentMethod?: string;
}

export interface Snapshot {
  readonly sales: readonly RecordView[];
  readonly withdrawals: readonly RecordView[];
}

interface StatusRow {
  readonly status: string;
  readonly truthCount: number;
  readonly truthCents: Cents;
  readonly mirrorCount: number;
  readonly mirrorCents: Cents;
  readonly matches: boolean;
}

interface FieldDifference {
  readonly field: 'status' | 'amountCents' | 'paymentMethod';
  readonly truth: string;
  readonly mirror: string;
}

export type RecordMismatch =
  | { readonly resource: Resource; readonly id: number; readonly kind: 'missing_in_mirror' }
  | { readonly resource: Resource; readonly id: number; readonly kind: 'unknown_to_gateway' }
  | {
      readonly resource: Resource;
      readonly id: number;
      readonly kind: 'differs';
      readonly differences: readonly FieldDifference[];
    };

export interface ResourceComparison {
  readonly rows: readonly StatusRow[];
  readonly total: StatusRow;
  readonly mismatches: readonly RecordMismatch[];
}

export interface Comparison {
  readonly sales: ResourceComparison;
  readonly withdrawals: ResourceComparison;
  /** Records (sales and withdrawals) that are missing, unexpected or differ. */
  readonly mismatchingRecords: number;
  /** Every per-status row and every record agrees. */
  readonly matches: boolean;
}

/**
 * A bank-rejected withdrawal is REJECTED in notifications (and in the sandbox) and FAILED in
 * the gateway's read form (docs/gateway.md 2.1): one outcome under two names, counted as REJECTED.
 */
function canonicalWithdrawalStatus(status: string): string {
  return status === 'FAILED' ? 'REJECTED' : status;
}

export function compareSnapshots(truth: Snapshot, mirror: Snapshot): Comparison {
  const sales = compareResource('sale', truth.sales, mirror.sales, SALE_STATUSES, (s) => s);
  const withdrawals = compareResource(
    'withdrawal',
    truth.withdrawals,
    mirror.withdrawals,
    WITHDRAWAL_STATUSES.filter((status) => status !== 'FAILED'),
    canonicalWithdrawalStatus,
  );
  const mismatchingRecords = sales.mismatches.length + withdrawals.mismatches.length;
  const rowsMatch = [...sales.rows, ...withdrawals.rows].every((row) => row.matches);
  return {
    sales,
    withdrawals,
    mismatchingRecords,
    matches: mismatchingRecords === 0 && rowsMatch,
  };
}

function compareResource(
  resource: Resource,
  truth: readonly RecordView[],
  mirror: readonly RecordView[],
  order: readonly string[],
  canonical: (status: string) => string,
): ResourceComparison {
  const truthTotals = totalsByStatus(truth, canonical);
  const mirrorTotals = totalsByStatus(mirror, canonical);
  const statuses = [
    ...order.filter((status) => truthTotals.has(status) || mirrorTotals.has(status)),
    // A status outside the vocabulary would be a finding in itself: show it, last.
    ...[...new Set([...truthTotals.keys(), ...mirrorTotals.keys()])]
      .filter((status) => !order.includes(status))
      .sort(),
  ];
  const rows = statuses.map((status) =>
    row(status, truthTotals.get(status), mirrorTotals.get(status)),
  );
  const sum = (side: readonly RecordView[]) => ({
    count: side.length,
    cents: side.reduce((acc, record) => acc + record.amountCents, 0),
  });
  const total = row('total', sum(truth), sum(mirror));

  const mirrorById = new Map(mirror.map((record) => [record.id, record]));
  const truthIds = new Set(truth.map((record) => record.id));
  const mismatches: RecordMismatch[] = [];
  for (const expected of [...truth].sort((a, b) => a.id - b.id)) {
    const actual = mirrorById.get(expected.id);
    if (!actual) {
      mismatches.push({ resource, id: expected.id, kind: 'missing_in_mirror' });
      continue;
    }
    const differences: FieldDifference[] = [];
    if (canonical(expected.status) !== canonical(actual.status)) {
      differences.push({ field: 'status', truth: expected.status, mirror: actual.status });
    }
    if (expected.amountCents !== actual.amountCents) {
      differences.push({
        field: 'amountCents',
        truth: String(expected.amountCents),
        mirror: String(actual.amountCents),
      });
    }
    if (expected.paymentMethod !== undefined && expected.paymentMethod !== actual.paymentMethod) {
      differences.push({
        field: 'paymentMethod',
        truth: expected.paymentMethod,
        mirror: actual.paymentMethod ?? '(none)',
      });
    }
    if (differences.length > 0) {
      mismatches.push({ resource, id: expected.id, kind: 'differs', differences });
    }
  }
  for (const extra of mirror) {
    if (!truthIds.has(extra.id)) {
      mismatches.push({ resource, id: extra.id, kind: 'unknown_to_gateway' });
    }
  }
  return { rows, total, mismatches };
}

function totalsByStatus(
  records: readonly RecordView[],
  canonical: (status: string) => string,
): Map<string, { count: number; cents: Cents }> {
  const totals = new Map<string, { count: number; cents: Cents }>();
  for (const record of records) {
    const status = canonical(record.status);
    const current = totals.get(status) ?? { count: 0, cents: 0 };
    totals.set(status, { count: current.count + 1, cents: current.cents + record.amountCents });
  }
  return totals;
}

function row(
  status: string,
  truth: { count: number; cents: Cents } | undefined,
  mirror: { count: number; cents: Cents } | undefined,
): StatusRow {
  const truthCount = truth?.count ?? 0;
  const truthCents = truth?.cents ?? 0;
  const mirrorCount = mirror?.count ?? 0;
  const mirrorCents = mirror?.cents ?? 0;
  return {
    status,
    truthCount,
    truthCents,
    mirrorCount,
    mirrorCents,
    matches: truthCount === mirrorCount && truthCents === mirrorCents,
  };
}
