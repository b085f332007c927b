import type { Fragment, Sql, Tx } from '../../db/client.js';
import { fieldsOf, insertRows, selectFields, updateRowsById } from '../../db/jsonRows.js';
import type { SaleRow, WithdrawalRow } from '../../db/rows.js';
import { sales, withdrawals } from '../../db/schema.js';
import type { WatchPolicy } from '../../domain/reconcileSchedule.js';
import type { PaymentMethod, SaleStatus } from '../../domain/saleMachine.js';

/**
 * The statements on the mirror's records, `sales` and `withdrawals`: the writer's locks and
 * writes, and what the rest of paymirror reads of them.
 */

/** The ids to lock: given, or an array expression another statement's owner wrote. */
export type RecordIds = readonly number[] | Fragment;

/** The writer's statements on one of the two tables. */
export interface RecordTable<Row> {
  readonly resource: 'sale' | 'withdrawal';
  /** Every field null: what a row inserted in this transaction reads back as where silent. */
  readonly nullRow: Readonly<Record<string, null>>;
  /**
   * Locks and reads the rows whose id is in `ids`, in id order: two transactions locking
   * records cannot deadlock on them.
   */
  lock(tx: Tx, ids: RecordIds): Promise<Row[]>;
  /** Inserts rows (skipping ids inserted meanwhile); returns the ids it inserted. */
  insert(tx: Tx, rows: readonly object[]): Promise<number[]>;
  /** Updates rows by id, each only in the fields it names. */
  update(tx: Tx, rows: readonly ({ readonly id: number } & object)[]): Promise<void>;
}

const idsIn = (tx: Tx, ids: RecordIds): Fragment =>
  Array.isArray(ids) ? tx`${[...(ids as readonly number[])]}::int8[]` : (ids as Fragment);

const nullRowOf = (fields: readonly string[]) =>
  Object.fromEntries(fields.map((field) => [field, null]));

export const SALE_RECORDS: RecordTable<SaleRow> = {
  resource: 'sale',
  nullRow: nullRowOf(fieldsOf(sales)),
  lock: (tx, ids) =>
    tx<SaleRow[]>`
    select ${selectFields(tx, sales)} from sales
     where id = any(${idsIn(tx, ids)}) order by id for update`.execute(),
  insert: (tx, rows) =>
    insertRows(tx, sales, rows as never, { returningIds: true, skipConflicts: true }),
  update: (tx, rows) => updateRowsById(tx, sales, rows as never),
};

export const WITHDRAWAL_RECORDS: RecordTable<WithdrawalRow> = {
  resource: 'withdrawal',
  nullRow: nullRowOf(fieldsOf(withdrawals)),
  lock: (tx, ids) =>
    tx<WithdrawalRow[]>`
    select ${selectFields(tx, withdrawals)} from withdrawals
     where id = any(${idsIn(tx, ids)}) order by id for update`.execute(),
  insert: (tx, rows) =>
    insertRows(tx, withdrawals, rows as never, { returningIds: true, skipConflicts: true }),
  update: (tx, rows) => updateRowsById(tx, withdrawals, rows as never),
};

/** The status and method of these sales as the mirror holds them now, without a lock. */
export async function saleStates(
  sql: Sql,
  ids: readonly number[],
): Promise<Map<number, { status: SaleStatus; paymentMethod: PaymentMethod }>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<{ id: number; status: SaleStatus; paymentMethod: PaymentMethod }[]>`
    select id, status, payment_method as "paymentMethod" from sales
     where id = any(${[...ids]}::int8[])`.execute();
  return new Map(rows.map(({ id, ...state }) => [id, state]));
}

/**
 * `true` when the sale is in the mirror with another status than `status`: for the inbox, a
 * PAGO delivered again after the sale moved on (PAGO → MED → PAGO) is a new event.
 */
export function saleMovedFrom(sql: Sql | Tx, saleId: number, status: string): Fragment {
  return sql`exists (select 1 from sales s where s.id = ${saleId} and s.status <> ${status})`;
}

export interface RecordRef {
  readonly resource: 'sale' | 'withdrawal';
  readonly id: number;
}

/**
 * `true` when the mirror has the record (a row: seen before, or created by paymirror, whose
 * sales and cashouts are written as the gateway answers): for the inbox's store statement,
 * which decides where a webhook waits for its confirmation. `resource` and `id` are the
 * statement's own expressions (a column, a parameter).
 */
export function recordKnown(sql: Sql | Tx, resource: Fragment, id: Fragment): Fragment {
  return sql`case ${resource}
               when 'sale' then exists (select 1 from sales k where k.id = ${id})
               when 'withdrawal' then exists (select 1 from withdrawals k where k.id = ${id})
               else false end`;
}

/** Those of these records the mirror has (see recordKnown), as `sale:1`, `withdrawal:2` keys. */
export async function knownRecords(sql: Sql, refs: readonly RecordRef[]): Promise<Set<string>> {
  const ids = (resource: RecordRef['resource']) =>
    refs.filter((ref) => ref.resource === resource).map((ref) => ref.id);
  const [sales, withdrawals] = [ids('sale'), ids('withdrawal')];
  if (sales.length + withdrawals.length === 0) return new Set();
  const rows = await sql<{ key: string }[]>`
    select 'sale:' || id as key from sales where id = any(${sales}::int8[])
    union all
    select 'withdrawal:' || id from withdrawals where id = any(${withdrawals}::int8[])`.execute();
  return new Set(rows.map((row) => row.key));
}

/** What the scheduled pass checks: rows the worker marked first, then rows whose check is due. */
export function dueRecords(sql: Sql, limit: number): Promise<RecordRef[]> {
  return sql<RecordRef[]>`
    select resource, id from (
      select 'sale' as resource, id, reconcile_requested_at, next_reconcile_at from sales
       where reconcile_requested_at is not null or next_reconcile_at <= now()
      union all
      select 'withdrawal', id, reconcile_requested_at, next_reconcile_at from withdrawals
       where reconcile_requested_at is not null or next_reconcile_at <= now()
    ) due
    order by reconcile_requested_at nulls last, next_reconcile_at
    limit ${limit}`.execute();
}

const FINAL_SALE = ['CANCELADO', 'RECUSADO', 'ESTORNADO'];
const FINAL_WITHDRAWAL = ['COMPLETED', 'REJECTED', 'FAILED', 'CANCELLED'];

/** Every record whose status is not final, a PAGO sale only within its watch window. */
export function openRecords(sql: Sql, policy: WatchPolicy): Promise<RecordRef[]> {
  return sql<RecordRef[]>`
    select 'sale' as resource, id from sales
     where status <> all(${FINAL_SALE})
       and (status <> 'PAGO'
            or coalesce(completed_at, created_at, first_seen_at) > now() - make_interval(days =>
                 case payment_method
                   when 'PIX' then ${policy.medWindowDays}::int
                   when 'CREDIT_CARD' then ${policy.chargebackWindowDays}::int
                   when 'DEBIT_CARD' then ${policy.chargebackWindowDays}::int
                   else ${policy.paidWatchDays}::int
                 end))
    union all
    select 'withdrawal', id from withdrawals where status <> all(${FINAL_WITHDRAWAL})
    order by 1, 2`.execute();
}

/** Every sale and withdrawal's id, status and amount (and a sale's method), by id. */
export async function recordSummaries(sql: Sql): Promise<{
  sales: { id: number; status: string; paymentMethod: string; amountCents: number }[];
  withdrawals: { id: number; status: string; amountCents: number }[];
}> {
  const [saleRows, withdrawalRows] = await Promise.all([
    sql<{ id: number; status: string; paymentMethod: string; amountCents: number }[]>`
      select id, status, payment_method as "paymentMethod", amount_cents as "amountCents"
        from sales order by id`.execute(),
    sql<{ id: number; status: string; amountCents: number }[]>`
      select id, status, amount_cents as "amountCents" from withdrawals order by id`.execute(),
  ]);
  return { sales: [...saleRows], withdrawals: [...withdrawalRows] };
}

/** How many records are flagged for an operator, and how many the gateway denied. */
export async function attentionCounts(sql: Sql): Promise<{ flagged: number; denied: number }> {
  const [row] = await sql<{ flagged: number; denied: number }[]>`
    select (select count(*) from sales where flagged_at is not null)
         + (select count(*) from withdrawals where flagged_at is not null) as flagged,
           (select count(*) from sales where denied_at is not null)
         + (select count(*) from withdrawals where denied_at is not null) as denied`.execute();
  return { flagged: Number(row?.flagged ?? 0), denied: Number(row?.denied ?? 0) };
}
