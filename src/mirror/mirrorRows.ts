import { getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm';
import { bigintArrayLiteral } from '../db/literals.js';
import type { Tx } from '../db/client.js';
import { insertRows, TX_NOW, updateRowsById, type TxNow } from '../db/jsonRows.js';
import { RowReader } from '../db/rowReader.js';
import { sales, withdrawals } from '../db/schema.js';
import { executeQuery } from '../db/driverQuery.js';
import { InvariantError } from '../lib/invariantError.js';

type MirrorTable = typeof sales | typeof withdrawals;
type RowOf<T extends MirrorTable> = T['$inferSelect'];
type InsertOf<T extends MirrorTable> = T['$inferInsert'];
export type ChangeOf<T extends MirrorTable> = {
  -readonly [K in keyof InsertOf<T>]?: InsertOf<T>[K] | TxNow;
};

export class MirrorInsertRaceError extends Error {
  override readonly name = 'MirrorInsertRaceError';
  constructor(table: string, ids: readonly number[]) {
    super(`${table} ${ids.join(', ')} inserted by another transaction meanwhile; run again`);
  }
}

/** What MirrorRows needs of its table, built once per table rather than at every batch. */
interface TableShape<T extends MirrorTable> {
  readonly name: SQL;
  readonly reader: RowReader<RowOf<T>>;
  /** Every column null: what an inserted row reads back as where its values are silent. */
  readonly nullRow: Readonly<Record<string, null>>;
}

const shapes = new Map<MirrorTable, TableShape<MirrorTable>>();

function shapeOf<T extends MirrorTable>(table: T): TableShape<T> {
  let shape = shapes.get(table);
  if (shape === undefined) {
    shape = {
      name: sql`${sql.identifier(getTableName(table))}`,
      reader: RowReader.of(table),
      nullRow: Object.fromEntries(Object.keys(getTableColumns(table)).map((key) => [key, null])),
    };
    shapes.set(table, shape);
  }
  return shape as unknown as TableShape<T>;
}

/**
 * The mirror rows one transaction works on: locked together (in id order, so two
 * transactions cannot deadlock on them), changed in memory notice after notice, and written
 * back with one INSERT for the new rows and one UPDATE for the changed ones, however many
 * notices touched them.
 */
export class MirrorRows<T extends MirrorTable> {
  private readonly current = new Map<number, RowOf<T>>();
  /** Ids already looked up (and locked when they exist): not looked up again. */
  private readonly lookedUp = new Set<number>();
  private readonly inserted = new Map<number, ChangeOf<T>>();
  private readonly changed = new Map<number, ChangeOf<T>>();
  private readonly shape: TableShape<T>;

  constructor(private readonly table: T) {
    this.shape = shapeOf(table);
  }

  async lock(tx: Tx, ids: Iterable<number>): Promise<void> {
    const wanted = [...new Set(ids)].filter((id) => !this.lookedUp.has(id)).sort((a, b) => a - b);
    if (wanted.length === 0) return;
    for (const id of wanted) this.lookedUp.add(id);
    await this.lockWhere(tx, bigintArrayLiteral(wanted));
  }

  /**
   * Locks the records these inbox rows name (their resource_type and resource_id, set by the
   * ingress), in one statement that needs no earlier answer: it can share a round trip with
   * the statement locking the inbox rows. Call `markLookedUp` with the ids once they are known.
   */
  async lockNamedByInbox(tx: Tx, inboxEventIds: readonly number[]): Promise<void> {
    await this.lockWhere(tx, namedByInbox(this.tableName(), bigintArrayLiteral(inboxEventIds)));
  }

  /**
   * Locks and keeps the rows whose id is in `ids` (a bigint[] expression without parameters),
   * in id order. Planned at each run: prepared, the plan made while the table was empty was a
   * sequential scan, kept as it grew (2 ms and 534 buffers a batch in a new database's first
   * 20 seconds at 500/s; docs/architecture.md, "Plans that outlive a small table").
   */
  private async lockWhere(tx: Tx, ids: SQL): Promise<void> {
    const rows = await executeQuery<Record<string, unknown>>(
      tx,
      sql`select ${this.shape.reader.columns} from ${this.shape.name}
           where id = any(${ids}) order by id for update`,
    );
    for (const raw of rows) {
      const row = this.shape.reader.decode(raw);
      this.current.set(row.id, row);
    }
  }

  markLookedUp(ids: Iterable<number>): void {
    for (const id of ids) this.lookedUp.add(id);
  }

  get(id: number): RowOf<T> | undefined {
    const row = this.current.get(id);
    if (row !== undefined) return row;
    const values = this.inserted.get(id);
    if (values === undefined) return undefined;
    // A row this transaction inserts, read back by a later input: every column, null when not
    // given. Built here, not at the insert: most new rows are never read again (a backlog of new
    // sales spent an eighth of its planning copying them).
    const inserted = withClock({ ...this.shape.nullRow }, values) as unknown as RowOf<T>;
    this.current.set(id, inserted);
    return inserted;
  }

  insert(id: number, values: ChangeOf<T>): void {
    this.inserted.set(id, values);
  }

  update(id: number, fields: ChangeOf<T>): void {
    if (Object.keys(fields).length === 0) return;
    const row = this.get(id);
    if (!row) throw new InvariantError(`${this.tableName()} ${id} updated before it was locked`);
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
    const written = await insertRows(tx, this.table, [...this.inserted.values()], {
      returningIds: true,
      skipConflicts: true,
    });
    if (written.length !== this.inserted.size) {
      const done = new Set(written);
      const lost = [...this.inserted.keys()].filter((id) => !done.has(id));
      throw new MirrorInsertRaceError(this.tableName(), lost);
    }
  }

  async writeUpdates(tx: Tx): Promise<void> {
    const rows = [...this.changed].map(([id, fields]) => ({ ...fields, id }));
    await updateRowsById(tx, this.table, rows);
  }

  private tableName(): 'sale' | 'withdrawal' {
    return this.table === sales ? 'sale' : 'withdrawal';
  }
}

/**
 * The ids of the records of one kind that inbox rows name, as an array subquery: the planner
 * takes it as one `= any(...)` parameter and looks each id up by index. `inboxEventIds` is a
 * bigint[] parameter (anyOf.ts) or literal (literals.ts); the kind is written as a literal, so
 * the subquery adds no parameter of its own.
 *
 * The inbox rows are found by id alone and filtered after (a materialized CTE): offered
 * `resource_type = 'sale'` beside the ids, stale statistics (a backlog stored since the last
 * ANALYZE) made the planner AND the ids with every sale's entry in the resource index, 10,000
 * entries read to name 64 rows: 3 to 6 ms a statement, four statements a batch.
 */
export function namedByInbox(resource: 'sale' | 'withdrawal', inboxEventIds: SQL): SQL {
  return sql`array(with named as materialized (
                     select resource_type, resource_id from inbox_events
                      where id = any(${inboxEventIds}))
                   select resource_id from named
                    where ${resourceTypeIs(resource)} and resource_id is not null)`;
}

/** `resource_type = 'sale'` (or `'withdrawal'`), the kind written as a literal, not a parameter. */
export function resourceTypeIs(resource: 'sale' | 'withdrawal'): SQL {
  return sql.raw(`resource_type = '${resource}'`);
}

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
