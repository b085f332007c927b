/**
 * The journal's rules, pure: what a record's state implies on each account, and the entries that
 * take a record from what is booked to what its new state implies, each with its kind. The writer
 * books exactly that difference, so every record's entries sum, per account, to its state's
 * balances (docs/finance.md, "The journal").
 */

export type ResourceType = 'sale' | 'withdrawal';
export type Account = 'available' | 'reserved';
export const ACCOUNTS: readonly Account[] = ['available', 'reserved'];

export type EntryKind =
  | 'payment'
  | 'refund'
  | 'dispute_opened'
  | 'dispute_won'
  | 'dispute_lost'
  | 'fee_adjustment'
  | 'withdrawal'
  | 'withdrawal_returned'
  | 'denial'
  | 'restoration'
  | 'correction'
  | 'adjustment';

export interface Balances {
  readonly available: number;
  readonly reserved: number;
}

export const ZERO: Balances = { available: 0, reserved: 0 };

/** What the rules read of a mirror record. */
export interface RecordState {
  readonly resourceType: ResourceType;
  readonly status: string;
  /** A sale's gross, a withdrawal's amount: centavos. */
  readonly amountCents: number;
  /** A sale's net; null while unknown (the gross stands in). Unused for withdrawals. */
  readonly netAmountCents: number | null;
  /** The gateway denied the record: it holds nothing. */
  readonly denied: boolean;
}

export interface PlannedEntry {
  readonly account: Account;
  readonly amountCents: number;
  readonly kind: EntryKind;
}

/** Where a record's money sits: nowhere, available or reserved (a withdrawal: debited). */
type Shape = 'none' | 'available' | 'reserved' | 'debited';

const DISPUTES = new Set(['MED', 'CHARGEBACK']);
const WITHDRAWAL_DEBITED = new Set(['PENDING', 'PROCESSING', 'COMPLETED']);
const WITHDRAWAL_RETURNED = new Set(['REJECTED', 'FAILED', 'CANCELLED']);

function shapeOf(state: RecordState | null): Shape {
  if (state === null || state.denied) return 'none';
  if (state.resourceType === 'withdrawal') {
    return WITHDRAWAL_DEBITED.has(state.status) ? 'debited' : 'none';
  }
  if (state.status === 'PAGO') return 'available';
  return DISPUTES.has(state.status) ? 'reserved' : 'none';
}

/** A sale's net, or its gross while the net is unknown. */
function bookedValue(state: RecordState): number {
  return state.resourceType === 'sale'
    ? (state.netAmountCents ?? state.amountCents)
    : state.amountCents;
}

function balancesOf(shape: Shape, value: number): Balances {
  switch (shape) {
    case 'none':
      return ZERO;
    case 'available':
      return { available: value, reserved: 0 };
    case 'reserved':
      return { available: 0, reserved: value };
    case 'debited':
      return { available: 0 - value, reserved: 0 };
  }
}

/**
 * What a state implies: PAGO — the net available; MED or CHARGEBACK — the net reserved; a
 * withdrawal not returned — its amount out of available; anything else, or denied — nothing.
 */
export function impliedBalances(state: RecordState | null): Balances {
  return state === null ? ZERO : balancesOf(shapeOf(state), bookedValue(state));
}

function minus(a: Balances, b: Balances): Balances {
  return { available: a.available - b.available, reserved: a.reserved - b.reserved };
}

function entriesOf(delta: Balances, kind: EntryKind): PlannedEntry[] {
  return ACCOUNTS.flatMap((account) =>
    delta[account] === 0 ? [] : [{ account, amountCents: delta[account], kind }],
  );
}

/** The steps a move between two shapes takes, each with its kind. */
function steps(from: Shape, to: Shape, next: RecordState): [Shape, Shape, EntryKind][] {
  const closing = (kind: EntryKind): EntryKind =>
    next.resourceType === 'sale' && next.status === 'ESTORNADO' ? kind : 'correction';
  switch (`${from}>${to}`) {
    case 'none>available':
      return [[from, to, 'payment']];
    case 'none>reserved':
      return [
        ['none', 'available', 'payment'],
        ['available', 'reserved', 'dispute_opened'],
      ];
    case 'available>reserved':
      return [[from, to, 'dispute_opened']];
    case 'reserved>available':
      return [[from, to, 'dispute_won']];
    case 'available>none':
      return [[from, to, closing('refund')]];
    case 'reserved>none':
      return [[from, to, closing('dispute_lost')]];
    case 'none>debited':
      return [[from, to, 'withdrawal']];
    case 'debited>none':
      return [
        [from, to, WITHDRAWAL_RETURNED.has(next.status) ? 'withdrawal_returned' : 'correction'],
      ];
    default:
      return [[from, to, 'correction']];
  }
}

function sameBalances(a: Balances, b: Balances): boolean {
  return a.available === b.available && a.reserved === b.reserved;
}

/**
 * The entries that take a record from `booked` (its entries' sums) to what `next` implies, given
 * the state it moved from (`previous`, null when new). First what the amounts changing implies at
 * the old status (a net learnt from a read: fee_adjustment; anything the books did not hold as
 * `previous` implied: correction), then the move itself, step by step (a PAGO missed on the way
 * to MED is a payment, then a dispute opened). Denial and its undoing are moves of their own.
 * The entries always sum to impliedBalances(next) − booked.
 */
export function entriesFor(
  booked: Balances,
  previous: RecordState | null,
  next: RecordState,
): PlannedEntry[] {
  const value = bookedValue(next);
  const from = shapeOf(previous);
  const to = shapeOf(next);
  const atOldStatus = balancesOf(from, value);
  // A new record implies nothing (impliedBalances(null) is zero).
  const settled = sameBalances(booked, impliedBalances(previous));
  const amountKind: EntryKind =
    settled && next.resourceType === 'sale' ? 'fee_adjustment' : 'correction';
  const entries = entriesOf(minus(atOldStatus, booked), amountKind);
  // Stryker disable next-line ConditionalExpression: a shortcut: equal shapes give zero steps, which entriesOf drops
  if (from === to) return entries;
  const deniedBefore = previous?.denied ?? false;
  if (next.denied && !deniedBefore) {
    return [...entries, ...entriesOf(minus(balancesOf(to, value), atOldStatus), 'denial')];
  }
  if (deniedBefore && !next.denied) {
    return [...entries, ...entriesOf(minus(balancesOf(to, value), atOldStatus), 'restoration')];
  }
  for (const [stepFrom, stepTo, kind] of steps(from, to, next)) {
    entries.push(...entriesOf(minus(balancesOf(stepTo, value), balancesOf(stepFrom, value)), kind));
  }
  return entries;
}

/** Sums entries per account. */
export function sumEntries(entries: readonly { account: string; amountCents: number }[]): Balances {
  let available = 0;
  let reserved = 0;
  for (const entry of entries) {
    if (entry.account === 'available') available += entry.amountCents;
    else if (entry.account === 'reserved') reserved += entry.amountCents;
  }
  return { available, reserved };
}
