import {
  bookChanges,
  loadBooked,
  type BookedRecord,
  type RecordChange,
} from '../books/bookChanges.js';
import { shareBooks } from '../books/sql.js';
import type { Tx } from '../db/client.js';
import type { SaleRow, WithdrawalRow } from '../db/rows.js';
import type { MirrorInput } from './inputs.js';
import type { SaleRows, WithdrawalRows } from './mirrorRows.js';

/**
 * The writer's side of the books (docs/finance.md, "The journal"): the records' states before and
 * after the inputs, handed to the books, which append what the change implies in the same
 * transaction. The books never read the mirror's tables: the writer gives them its rows.
 */
export class Bookkeeping {
  private booked: Awaited<ReturnType<typeof loadBooked>> = new Map();
  private readonly before = new Map<string, BookedRecord | null>();

  constructor(private readonly records: { sale: number[]; withdrawal: number[] }) {}

  /** The books' lock, shared: sent before the mirror's locks (a close waits for writers). */
  static share(tx: Tx): Promise<unknown> {
    return shareBooks(tx);
  }

  /** The journal's sums for the records; sent after their locks. */
  async load(tx: Tx): Promise<void> {
    this.booked = await loadBooked(tx, this.records);
  }

  /** The records as locked, before any input changes them. */
  remember(sales: SaleRows, withdrawals: WithdrawalRows): void {
    for (const id of this.records.sale) this.before.set(`sale:${id}`, saleState(sales.get(id)));
    for (const id of this.records.withdrawal) {
      this.before.set(`withdrawal:${id}`, withdrawalState(withdrawals.get(id)));
    }
  }

  /** Appends the entries the inputs' changes imply. */
  write(
    tx: Tx,
    inputs: readonly MirrorInput[],
    sales: SaleRows,
    withdrawals: WithdrawalRows,
    now: Date,
  ): Promise<unknown> {
    const sources = sourcesOf(inputs);
    const changes: RecordChange[] = [];
    const add = (resourceType: 'sale' | 'withdrawal', id: number, after: BookedRecord | null) => {
      if (after === null) return;
      const name = `${resourceType}:${id}`;
      const source = sources.get(name) ?? 'reconcile';
      changes.push({ resourceType, id, before: this.before.get(name) ?? null, after, source });
    };
    for (const id of this.records.sale) add('sale', id, saleState(sales.get(id)));
    for (const id of this.records.withdrawal) {
      add('withdrawal', id, withdrawalState(withdrawals.get(id)));
    }
    return bookChanges(tx, this.booked, changes, now);
  }
}

function saleState(row: SaleRow | undefined): BookedRecord | null {
  if (row === undefined) return null;
  return {
    state: {
      resourceType: 'sale',
      status: row.status,
      amountCents: row.amountCents,
      netAmountCents: row.netAmountCents,
      denied: row.deniedAt !== null && row.deniedAt !== undefined,
    },
    paymentMethod: row.paymentMethod,
    statusObservedAt: row.statusObservedAt ?? null,
    completedAt: row.completedAt ?? null,
    deniedAt: row.deniedAt ?? null,
  };
}

function withdrawalState(row: WithdrawalRow | undefined): BookedRecord | null {
  if (row === undefined) return null;
  return {
    state: {
      resourceType: 'withdrawal',
      status: row.status,
      amountCents: row.amountCents,
      netAmountCents: null,
      denied: row.deniedAt !== null && row.deniedAt !== undefined,
    },
    paymentMethod: null,
    statusObservedAt: row.statusObservedAt ?? null,
    completedAt: null,
    deniedAt: row.deniedAt ?? null,
  };
}

/** Each record's last input's source. */
function sourcesOf(inputs: readonly MirrorInput[]): Map<string, string> {
  const sources = new Map<string, string>();
  for (const input of inputs) {
    switch (input.kind) {
      case 'notice':
        sources.set(`${input.notice.kind}:${input.notice.id}`, input.context.source);
        break;
      case 'read':
        sources.set(`${input.resource}:${input.record.id}`, input.context.source);
        break;
      case 'absent':
        sources.set(`${input.resource}:${input.id}`, 'reconcile');
        break;
    }
  }
  return sources;
}
