import type { Sql } from '../db/client.js';

/**
 * Every statement the console runs, read-only, each a small function with its row type. The
 * finance reports the Totals page shows run through src/reports (runReport) and are not here.
 *
 * bigint columns arrive as strings (exact); the pages turn them into safe integers with the
 * reports' own conversion (integerFromPostgres), never with parseFloat.
 */
type Int8 = string;
/**
 * timestamptz: Postgres's text form with this client's type parsers, a Date with the driver's
 * defaults; the pages take either (format.ts `when`, the reports' rowFromPostgres).
 */
type Timestamp = Date | string;

export type ResourceType = 'sale' | 'withdrawal';

// ---------------------------------------------------------------------------------------------
// Deliveries (inbox_events)

export interface DeliveryFilter {
  readonly channel: 'postback' | 'webhook' | null;
  readonly state: 'pending' | 'processed' | 'quarantined' | 'failed' | null;
  readonly outcome: string | null;
  readonly resourceType: ResourceType | null;
  readonly resourceId: number | null;
  /** São Paulo wall-clock minutes (YYYY-MM-DDTHH:MM), both inclusive, on received_at. */
  readonly from: string | null;
  readonly to: string | null;
  /** Keyset paging: only rows older (smaller id) than this one. */
  readonly beforeId: number | null;
  readonly limit: number;
}

export interface DeliveryRow {
  readonly id: Int8;
  readonly channel: string;
  readonly resource_type: string | null;
  readonly resource_id: Int8 | null;
  readonly notified_status: string | null;
  readonly state: string;
  readonly outcome: string | null;
  readonly quarantine_reason: string | null;
  readonly last_error: string | null;
  readonly attempts: number;
  readonly delivery_count: number;
  readonly received_at: Timestamp;
  readonly processed_at: Timestamp | null;
}

function deliveryColumns(sql: Sql) {
  return sql`id, channel, resource_type, resource_id, notified_status, state, outcome,
             quarantine_reason, last_error, attempts, delivery_count, received_at, processed_at`;
}

/** inbox_events, newest first, filtered. */
export function listDeliveries(sql: Sql, filter: DeliveryFilter): Promise<DeliveryRow[]> {
  const f = filter;
  return sql<DeliveryRow[]>`
    select ${deliveryColumns(sql)}
      from inbox_events
     where true
       ${f.channel ? sql`and channel = ${f.channel}` : sql``}
       ${f.state ? sql`and state = ${f.state}` : sql``}
       ${f.outcome ? sql`and outcome = ${f.outcome}` : sql``}
       ${f.resourceType ? sql`and resource_type = ${f.resourceType}` : sql``}
       ${f.resourceId !== null ? sql`and resource_id = ${f.resourceId}` : sql``}
       ${f.from ? sql`and received_at >= (${f.from}::timestamp at time zone 'America/Sao_Paulo')` : sql``}
       ${
         f.to
           ? sql`and received_at < (${f.to}::timestamp at time zone 'America/Sao_Paulo') + interval '1 minute'`
           : sql``
       }
       ${f.beforeId !== null ? sql`and id < ${f.beforeId}` : sql``}
     order by id desc
     limit ${f.limit}`;
}

export interface DeliveryDetailRow extends DeliveryRow {
  readonly event_key: string;
  readonly body_sha256: string;
  readonly headers: Record<string, unknown>;
  readonly payload: unknown;
  readonly raw_body: Buffer;
  readonly source_address: string | null;
  readonly last_delivered_at: Timestamp;
  readonly enqueued_at: Timestamp | null;
}

/** One inbox_events row, its headers and body included. */
export async function deliveryById(sql: Sql, id: number): Promise<DeliveryDetailRow | null> {
  const [row] = await sql<DeliveryDetailRow[]>`
    select ${deliveryColumns(sql)}, event_key, body_sha256, headers, payload, raw_body,
           source_address, last_delivered_at, enqueued_at
      from inbox_events
     where id = ${id}`;
  return row ?? null;
}

/** inbox_events about one record, oldest first. */
export function deliveriesOf(
  sql: Sql,
  resourceType: ResourceType,
  id: number,
  limit: number,
): Promise<DeliveryRow[]> {
  return sql<DeliveryRow[]>`
    select ${deliveryColumns(sql)}
      from inbox_events
     where resource_type = ${resourceType} and resource_id = ${id}
     order by id
     limit ${limit}`;
}

// ---------------------------------------------------------------------------------------------
// Records (sales, sale_items, withdrawals, status_history)

export interface SaleRow {
  readonly id: Int8;
  readonly status: string;
  readonly payment_method: string;
  readonly amount_cents: Int8;
  readonly net_amount_cents: Int8 | null;
  readonly system_fee_cents: Int8 | null;
  readonly reserve_amount_cents: Int8 | null;
  readonly installments: number | null;
  readonly customer_name: string | null;
  readonly customer_email: string | null;
  readonly customer_document: string | null;
  readonly customer_phone: string | null;
  readonly card_brand: string | null;
  readonly card_last_four: string | null;
  readonly external_transaction_id: string | null;
  readonly created_at: Timestamp | null;
  readonly completed_at: Timestamp | null;
  readonly first_seen_at: Timestamp;
  readonly updated_at: Timestamp;
  readonly status_observed_at: Timestamp | null;
  readonly gateway_read_at: Timestamp | null;
  readonly last_reconciled_at: Timestamp | null;
  readonly next_reconcile_at: Timestamp | null;
  readonly reconcile_requested_at: Timestamp | null;
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
  readonly item_id: Int8;
  readonly title: string;
  readonly unit_price_cents: Int8;
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
  readonly id: Int8;
  readonly status: string;
  readonly amount_cents: Int8;
  readonly net_amount_cents: Int8 | null;
  readonly fee_total_cents: Int8 | null;
  readonly pix_key: string | null;
  readonly pix_key_type: string | null;
  readonly external_id: string | null;
  readonly created_at: Timestamp | null;
  readonly gateway_updated_at: Timestamp | null;
  readonly processed_at: Timestamp | null;
  readonly first_seen_at: Timestamp;
  readonly updated_at: Timestamp;
  readonly status_observed_at: Timestamp | null;
  readonly gateway_read_at: Timestamp | null;
  readonly last_reconciled_at: Timestamp | null;
  readonly next_reconcile_at: Timestamp | null;
  readonly reconcile_requested_at: Timestamp | null;
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
  readonly id: Int8;
  readonly from_status: string | null;
  readonly to_status: string;
  readonly source: string;
  readonly inbox_event_id: Int8 | null;
  readonly entered: boolean;
  readonly observed_at: Timestamp;
  readonly recorded_at: Timestamp;
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

// ---------------------------------------------------------------------------------------------
// Reconciliation (reconciliation_runs, reconciliation_discrepancies)

export interface DiscrepancyRow {
  readonly id: Int8;
  readonly run_id: Int8 | null;
  readonly resource_type: string;
  readonly resource_id: Int8;
  readonly field: string;
  readonly mirror_value: string | null;
  readonly gateway_value: string | null;
  readonly action: string;
  readonly source: string;
  readonly inbox_event_id: Int8 | null;
  readonly detected_at: Timestamp;
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

export interface RunRow {
  readonly id: Int8;
  readonly trigger: string;
  readonly status: string;
  readonly started_at: Timestamp;
  readonly finished_at: Timestamp | null;
  readonly checked: number;
  readonly unchanged: number;
  readonly inserted: number;
  readonly corrected: number;
  readonly not_found: number;
  readonly errors: number;
  readonly error: string | null;
  readonly discrepancy_count: Int8;
}

/** A run's columns (`r`), with how many discrepancies it recorded. */
function runColumns(sql: Sql) {
  return sql`r.id, r.trigger, r.status, r.started_at, r.finished_at, r.checked, r.unchanged,
             r.inserted, r.corrected, r.not_found, r.errors, r.error,
             (select count(*) from reconciliation_discrepancies d where d.run_id = r.id)
               as discrepancy_count`;
}

/** reconciliation_runs, newest first, each with how many discrepancies it recorded. */
export function listReconciliationRuns(
  sql: Sql,
  page: { readonly beforeId: number | null; readonly limit: number },
): Promise<RunRow[]> {
  return sql<RunRow[]>`
    select ${runColumns(sql)}
      from reconciliation_runs r
     where true ${page.beforeId !== null ? sql`and r.id < ${page.beforeId}` : sql``}
     order by r.id desc
     limit ${page.limit}`;
}

export async function reconciliationRunById(sql: Sql, id: number): Promise<RunRow | null> {
  const [row] = await sql<RunRow[]>`
    select ${runColumns(sql)}
      from reconciliation_runs r
     where r.id = ${id}`;
  return row ?? null;
}

// ---------------------------------------------------------------------------------------------
// Cashouts (cashout_attempts)

export interface CashoutAttemptRow {
  readonly id: Int8;
  readonly requested_at: Timestamp;
  readonly amount_cents: Int8;
  readonly pix_key: string;
  readonly pix_key_type: string | null;
  readonly outcome: string;
  readonly withdrawal_id: Int8 | null;
  readonly detail: string | null;
  readonly finished_at: Timestamp | null;
}

function cashoutColumns(sql: Sql) {
  return sql`id, requested_at, amount_cents, pix_key, pix_key_type, outcome, withdrawal_id,
             detail, finished_at`;
}

/** cashout_attempts whose outcome is pending or unknown (a decision is due), oldest first. */
export function undecidedCashoutAttempts(sql: Sql, limit: number): Promise<CashoutAttemptRow[]> {
  return sql<CashoutAttemptRow[]>`
    select ${cashoutColumns(sql)}
      from cashout_attempts
     where outcome in ('pending', 'unknown')
     order by id
     limit ${limit}`;
}

/** cashout_attempts whose outcome is known, newest first. */
export function settledCashoutAttempts(
  sql: Sql,
  page: { readonly beforeId: number | null; readonly limit: number },
): Promise<CashoutAttemptRow[]> {
  return sql<CashoutAttemptRow[]>`
    select ${cashoutColumns(sql)}
      from cashout_attempts
     where outcome not in ('pending', 'unknown')
       ${page.beforeId !== null ? sql`and id < ${page.beforeId}` : sql``}
     order by id desc
     limit ${page.limit}`;
}

/** cashout_attempts that created (or were resolved to) one withdrawal. */
export function cashoutAttemptsOf(sql: Sql, withdrawalId: number): Promise<CashoutAttemptRow[]> {
  return sql<CashoutAttemptRow[]>`
    select ${cashoutColumns(sql)}
      from cashout_attempts
     where withdrawal_id = ${withdrawalId}
     order by id`;
}

// ---------------------------------------------------------------------------------------------
// Totals (finance_open_disputes; the other finance views go through src/reports)

export interface OpenDisputeRow {
  readonly sale_id: Int8;
  readonly payment_method: string;
  readonly status: string;
  readonly amount_cents: Int8;
  readonly net_amount_cents: Int8 | null;
  readonly reserve_amount_cents: Int8 | null;
  readonly since: Timestamp | null;
  readonly age_seconds: Int8 | null;
}

/** finance_open_disputes: sales now in MED or CHARGEBACK, the oldest dispute first. */
export function openDisputes(sql: Sql): Promise<OpenDisputeRow[]> {
  return sql<OpenDisputeRow[]>`
    select sale_id, payment_method, status, amount_cents, net_amount_cents,
           reserve_amount_cents, since, floor(extract(epoch from age))::bigint as age_seconds
      from finance_open_disputes
     order by since nulls first, sale_id`;
}

// ---------------------------------------------------------------------------------------------
// Health (inbox_events, reconciliation_runs, cashout_attempts)

export interface InboxHealthRow {
  readonly pending: number;
  readonly quarantined: number;
  readonly failed: number;
  readonly oldest_pending_id: Int8 | null;
  readonly oldest_pending_at: Timestamp | null;
  readonly oldest_pending_age_seconds: Int8 | null;
}

/** Rows waiting or stuck, and the oldest delivery still pending. */
export async function inboxHealth(sql: Sql): Promise<InboxHealthRow> {
  const [row] = await sql<InboxHealthRow[]>`
    select (select count(*)::int from inbox_events where state = 'pending') as pending,
           (select count(*)::int from inbox_events where state = 'quarantined') as quarantined,
           (select count(*)::int from inbox_events where state = 'failed') as failed,
           oldest.id as oldest_pending_id,
           oldest.received_at as oldest_pending_at,
           floor(extract(epoch from now() - oldest.received_at))::bigint
             as oldest_pending_age_seconds
      from (select 1) one
      left join lateral (
            select id, received_at from inbox_events
             where state = 'pending' order by received_at, id limit 1
           ) oldest on true`;
  if (!row) throw new Error('inboxHealth: no row');
  return row;
}

/** The newest reconciliation run, and the newest that succeeded. */
export async function latestReconciliationRuns(
  sql: Sql,
): Promise<{ latest: RunRow | null; lastSucceeded: RunRow | null }> {
  const rows = await sql<(RunRow & { which: 'latest' | 'succeeded' })[]>`
    (select 'latest' as which, ${runColumns(sql)}
       from reconciliation_runs r order by r.id desc limit 1)
    union all
    (select 'succeeded' as which, ${runColumns(sql)}
       from reconciliation_runs r where r.status = 'succeeded' order by r.id desc limit 1)`;
  return {
    latest: rows.find((row) => row.which === 'latest') ?? null,
    lastSucceeded: rows.find((row) => row.which === 'succeeded') ?? null,
  };
}

/** Cashout attempts whose outcome nobody knows yet, by outcome. */
export async function unresolvedCashoutCounts(
  sql: Sql,
): Promise<{ pending: number; unknown: number }> {
  const [row] = await sql<{ pending: number; unknown: number }[]>`
    select count(*) filter (where outcome = 'pending')::int as pending,
           count(*) filter (where outcome = 'unknown')::int as unknown
      from cashout_attempts
     where outcome in ('pending', 'unknown')`;
  return row ?? { pending: 0, unknown: 0 };
}
