import type { Sql } from '../../db/client.js';

/** Reads of one record's story for people (the console): its row, items, history and
 * discrepancies. */
/** bigint columns read as numbers (src/db/client.ts), timestamps as Dates. */

type ResourceType = 'sale' | 'withdrawal';

export interface SaleRow {
  readonly id: number;
  readonly status: string;
  readonly payment_method: string;
  readonly amount_cents: number;
  readonly net_amount_cents: number | null;
  readonly system_fee_cents: number | null;
  readonly reserve_amount_cents: number | null;
  readonly installments: number | null;
  readonly customer_name: string | null;
  readonly customer_email: string | null;
  readonly customer_document: string | null;
  readonly customer_phone: string | null;
  readonly card_brand: string | null;
  readonly card_last_four: string | null;
  readonly external_transaction_id: string | null;
  readonly created_at: Date | null;
  readonly completed_at: Date | null;
  readonly first_seen_at: Date;
  readonly updated_at: Date;
  readonly status_observed_at: Date | null;
  readonly gateway_read_at: Date | null;
  readonly last_reconciled_at: Date | null;
  readonly next_reconcile_at: Date | null;
  readonly reconcile_requested_at: Date | null;
  readonly reconcile_reason: string | null;
}

export async function saleById(sql: Sql, id: number): Promise<SaleRow | null> {
  const [row] = await sql<SaleRow[]>`
    select id, status, payment_method, amount_cents, net_amount_cents, system_fee_cents,
           reserve_amount_cents, installments, customer_name, customer_email,
           customer_document, customer_phone, card_brand, card_last_four,
           external_transaction_id, created_at, completed_at, first_seen_at, updated_at,
           status_observed_at, gateway_read_at, last_reconciled_at, next_reconcile_at,
           reconcile_requested_at, reconcile_reason
      from sales
     where id = ${id}`;
  return row ?? null;
}

export interface SaleItemRow {
  readonly item_id: number;
  readonly title: string;
  readonly unit_price_cents: number;
  readonly quantity: number;
  readonly tangible: boolean;
}

export function saleItemsOf(sql: Sql, saleId: number): Promise<SaleItemRow[]> {
  return sql<SaleItemRow[]>`
    select item_id, title, unit_price_cents, quantity, tangible
      from sale_items
     where sale_id = ${saleId}
     order by item_id`;
}

export interface WithdrawalRow {
  readonly id: number;
  readonly status: string;
  readonly amount_cents: number;
  readonly net_amount_cents: number | null;
  readonly fee_total_cents: number | null;
  readonly pix_key: string | null;
  readonly pix_key_type: string | null;
  readonly external_id: string | null;
  readonly created_at: Date | null;
  readonly gateway_updated_at: Date | null;
  readonly processed_at: Date | null;
  readonly first_seen_at: Date;
  readonly updated_at: Date;
  readonly status_observed_at: Date | null;
  readonly gateway_read_at: Date | null;
  readonly last_reconciled_at: Date | null;
  readonly next_reconcile_at: Date | null;
  readonly reconcile_requested_at: Date | null;
  readonly reconcile_reason: string | null;
}

export async function withdrawalById(sql: Sql, id: number): Promise<WithdrawalRow | null> {
  const [row] = await sql<WithdrawalRow[]>`
    select id, status, amount_cents, net_amount_cents, fee_total_cents, pix_key, pix_key_type,
           external_id, created_at, gateway_updated_at, processed_at, first_seen_at,
           updated_at, status_observed_at, gateway_read_at, last_reconciled_at,
           next_reconcile_at, reconcile_requested_at, reconcile_reason
      from withdrawals
     where id = ${id}`;
  return row ?? null;
}

export interface HistoryRow {
  readonly id: number;
  readonly from_status: string | null;
  readonly to_status: string;
  readonly source: string;
  readonly inbox_event_id: number | null;
  readonly entered: boolean;
  readonly observed_at: Date;
  readonly recorded_at: Date;
}

/** status_history of one record, in the order it was recorded. */
export function statusHistoryOf(
  sql: Sql,
  resourceType: ResourceType,
  id: number,
): Promise<HistoryRow[]> {
  return sql<HistoryRow[]>`
    select id, from_status, to_status, source, inbox_event_id, entered, observed_at, recorded_at
      from status_history
     where resource_type = ${resourceType} and resource_id = ${id}
     order by id`;
}

export interface DiscrepancyRow {
  readonly id: number;
  readonly run_id: number | null;
  readonly resource_type: string;
  readonly resource_id: number;
  readonly field: string;
  readonly mirror_value: string | null;
  readonly gateway_value: string | null;
  readonly action: string;
  readonly source: string;
  readonly inbox_event_id: number | null;
  readonly detected_at: Date;
}

function discrepancyColumns(sql: Sql) {
  return sql`id, run_id, resource_type, resource_id, field, mirror_value, gateway_value, action,
             source, inbox_event_id, detected_at`;
}

/** reconciliation_discrepancies of one record, oldest first. */
export function discrepanciesOf(
  sql: Sql,
  resourceType: ResourceType,
  id: number,
): Promise<DiscrepancyRow[]> {
  return sql<DiscrepancyRow[]>`
    select ${discrepancyColumns(sql)}
      from reconciliation_discrepancies
     where resource_type = ${resourceType} and resource_id = ${id}
     order by id`;
}

export interface DiscrepancyFilter {
  readonly runId: number | null;
  readonly source: string | null;
  readonly action: string | null;
  readonly beforeId: number | null;
  readonly limit: number;
}

/** reconciliation_discrepancies, newest first: of one run, or all (those outside runs too). */
export function listDiscrepancies(sql: Sql, filter: DiscrepancyFilter): Promise<DiscrepancyRow[]> {
  const f = filter;
  return sql<DiscrepancyRow[]>`
    select ${discrepancyColumns(sql)}
      from reconciliation_discrepancies
     where true
       ${f.runId !== null ? sql`and run_id = ${f.runId}` : sql``}
       ${f.source ? sql`and source = ${f.source}` : sql``}
       ${f.action ? sql`and action = ${f.action}` : sql``}
       ${f.beforeId !== null ? sql`and id < ${f.beforeId}` : sql``}
     order by id desc
     limit ${f.limit}`;
}

/** How many discrepancies each of these runs recorded. */
export async function discrepancyCountsByRun(
  sql: Sql,
  runIds: readonly number[],
): Promise<Map<number, number>> {
  if (runIds.length === 0) return new Map();
  const rows = await sql<{ run_id: number; n: number }[]>`
    select run_id, count(*)::int as n from reconciliation_discrepancies
     where run_id = any(${[...runIds]}::bigint[]) group by run_id`;
  return new Map(rows.map((row) => [row.run_id, row.n]));
}
