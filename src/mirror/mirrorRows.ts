import type { Tx } from '../db/client.js';
import { TX_NOW, type TxNow } from '../db/jsonRows.js';
import type { SaleRow, WithdrawalRow } from '../db/rows.js';
import { InvariantError } from '../lib/invariantError.js';
import type { Fields } from './resource.js';
import {
  SALE_RECORDS,
  WITHDRAWAL_RECORDS,
  type RecordIds,
  type RecordTable,
} from './sql/records.js';

/** Fields to write to a record: its insert type's, each also TX_NOW (the database's now()). */
export type Change<Insert> = { -readonly [K in keyof Insert]?: Insert[K] | TxNow };

export class MirrorInsertRaceError extends Error {
  override readonly name = 'MirrorInsertRaceError';
  constructor(resource: string, ids: readonly number[]) {
    super(`${resource} ${ids.join(', ')} inserted by another transaction meanwhile; run again`);
  }
}

/**
 * The mirror rows one transaction works on: locked together (in id order, so two
 * transactions cannot deadlock on them), changed in memory input after input, and written
 * back with one INSERT for the new rows and one UPDATE for the changed ones, however many
 * inputs touched them.
 */
export class MirrorRows<Row extends { readonly id: number }> {
  private readonly current = new Map<number, Row>();
  /** Ids already looked up (and locked when they exist): not looked up again. */
  private readonly lookedUp = new Set<number>();
  private readonly inserted = new Map<number, Fields>();
  private readonly changed = new Map<number, Fields>();

  constructor(private readonly table: RecordTable<Row>) {}

  get resource(): 'sale' | 'withdrawal' {
    return this.table.resource;
  }

  /** Locks the rows of these ids not looked up yet. */
  async lock(tx: Tx, ids: Iterable<number>): Promise<void> {
    const wanted = [...new Set(ids)].filter((id) => !this.lookedUp.has(id)).sort((a, b) => a - b);
    if (wanted.length === 0) return;
    this.markLookedUp(wanted);
    await this.lockWhere(tx, wanted);
  }

  /**
   * Locks the rows an array expression names (another statement's owner wrote it): it needs no
   * earlier answer. Call `markLookedUp` with the ids it named once they are known.
   */
  async lockWhere(tx: Tx, ids: RecordIds): Promise<void> {
    for (const row of await this.table.lock(tx, ids)) this.current.set(row.id, row);
  }

  markLookedUp(ids: Iterable<number>): void {
    for (const id of ids) this.lookedUp.add(id);
  }

  get(id: number): Row | undefined {
    const row = this.current.get(id);
    if (row !== undefined) return row;
    const values = this.inserted.get(id);
    if (values === undefined) return undefined;
    // A row this transaction inserts, read back by a later input: every field, null when not
    // given. Built here, not at the insert: most new rows are never read again.
    const inserted = withClock({ ...this.table.nullRow }, values) as unknown as Row;
    this.current.set(id, inserted);
    return inserted;
  }

  insert(id: number, values: Fields): void {
    this.inserted.set(id, values);
  }

  update(id: number, fields: Fields): void {
    if (Object.keys(fields).length === 0) return;
    const row = this.get(id);
    if (!row) throw new InvariantError(`${this.resource} ${id} updated before it was locked`);
    this.current.set(id, withClock({ ...row }, fields));
    const pending = this.inserted.get(id) ?? this.changed.get(id);
    const merged = { ...pending, ...fields };
    if (this.inserted.has(id)) this.inserted.set(id, merged);
    else this.changed.set(id, merged);
  }

  /** Whether this transaction inserts the record (it did not exist when looked up). */
  inserts(id: number): boolean {
    return this.inserted.has(id);
  }

  /** INSERTs the new rows; before anything that refers to them (sale_items). */
  async writeInserts(tx: Tx): Promise<void> {
    if (this.inserted.size === 0) return;
    const written = await this.table.insert(tx, [...this.inserted.values()]);
    if (written.length !== this.inserted.size) {
      const done = new Set(written);
      const lost = [...this.inserted.keys()].filter((id) => !done.has(id));
      throw new MirrorInsertRaceError(this.resource, lost);
    }
  }

  async writeUpdates(tx: Tx): Promise<void> {
    if (this.changed.size === 0) return;
    await this.table.update(
      tx,
      [...this.changed].map(([id, fields]) => ({ ...fields, id })),
    );
  }
}

export type SaleRows = MirrorRows<SaleRow>;
export type WithdrawalRows = MirrorRows<WithdrawalRow>;

export const saleRows = (): SaleRows => new MirrorRows(SALE_RECORDS);
export const withdrawalRows = (): WithdrawalRows => new MirrorRows(WITHDRAWAL_RECORDS);

/**
 * `row` with `fields` written over it. In memory a TX_NOW reads back as a Date: close enough,
 * and nothing decides on it.
 */
function withClock<Row extends object>(row: Row, fields: object): Row {
  const target = row as Record<string, unknown>;
  for (const [key, value] of Object.entries(fields)) {
    target[key] = value === TX_NOW ? new Date() : value;
  }
  return row;
}

/**
 * Runs a transaction again when it lost an insert race (another transaction created a record
 * between our lock and our insert): the next run finds the record and locks it.
 */
export async function retryingInsertRaces<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof MirrorInsertRaceError) || attempt >= attempts) throw error;
    }
  }
}
