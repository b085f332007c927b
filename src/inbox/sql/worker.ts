import type { Fragment, Sql, Tx } from '../../db/client.js';

/** The worker's statements on `inbox_events` and `inbox_dedupe_keys`. */

/** An inbox row as the worker reads it. */
export interface StoredInboxRow {
  readonly id: number;
  readonly state: string;
  readonly channel: string;
  readonly eventKey: string;
  /** What the ingress read the notification to be about (null when it could not tell). */
  readonly resourceType: string | null;
  readonly resourceId: number | null;
  readonly payload: unknown;
  readonly receivedAt: Date;
}

const ROW_FIELDS = (sql: Sql | Tx) => sql`
  id, state, channel, event_key as "eventKey", resource_type as "resourceType",
  resource_id as "resourceId", payload, received_at as "receivedAt"`;

/**
 * Locks the rows, in id order (two batches cannot deadlock on them): a re-run job finds its
 * row finished and does nothing.
 */
export function lockInboxRows(tx: Tx, ids: readonly number[]): Promise<StoredInboxRow[]> {
  return tx<StoredInboxRow[]>`
    select ${ROW_FIELDS(tx)} from inbox_events
     where id = any(${[...ids]}::int8[]) order by id for update`.execute();
}

/** The pending rows without a lock: what a batch will need from the gateway. */
export function pendingInboxRows(sql: Sql, ids: readonly number[]): Promise<StoredInboxRow[]> {
  return sql<StoredInboxRow[]>`
    select ${ROW_FIELDS(sql)} from inbox_events
     where id = any(${[...ids]}::int8[]) and state = 'pending' order by id`.execute();
}

/** A pending webhook of a record, outside the batch that reads the record. */
export interface PendingWebhook {
  readonly id: number;
  readonly resourceType: 'sale' | 'withdrawal';
  readonly resourceId: number;
  readonly receivedAt: Date;
}

/**
 * The other pending webhooks of these records (not in `exceptIds`), oldest first, at most
 * `limit`: one gateway read answers every webhook of a record, wherever its job waits.
 */
export function pendingWebhooksOf(
  sql: Sql,
  records: { readonly sales: readonly number[]; readonly withdrawals: readonly number[] },
  exceptIds: readonly number[],
  limit: number,
): Promise<PendingWebhook[]> {
  return sql<PendingWebhook[]>`
    select id, resource_type as "resourceType", resource_id as "resourceId",
           received_at as "receivedAt"
      from inbox_events
     where ((resource_type = 'sale' and resource_id = any(${[...records.sales]}::int8[]))
            or (resource_type = 'withdrawal'
                and resource_id = any(${[...records.withdrawals]}::int8[])))
       and state = 'pending' and channel = 'webhook'
       and id <> all(${[...exceptIds]}::int8[])
     order by id limit ${limit}`.execute();
}

/**
 * The ids of the records of one kind that these inbox rows name (their resource_id, set by the
 * ingress), as an array expression: another statement can lock them without an earlier answer.
 * The rows are found by id alone and filtered after (a materialized CTE): offered the resource
 * type beside the ids, stale statistics (a backlog stored since the last ANALYZE) made the
 * planner AND the ids with every sale's entry in the resource index, 10,000 entries read to name
 * 64 rows.
 */
export function recordsNamedBy(
  sql: Sql | Tx,
  resource: 'sale' | 'withdrawal',
  inboxEventIds: readonly number[],
): Fragment {
  return sql`array(with named as materialized (
                     select resource_type, resource_id from inbox_events
                      where id = any(${[...inboxEventIds]}::int8[]))
                   select resource_id from named
                    where resource_type = ${resource} and resource_id is not null)`;
}

/** A delivery of a sale as stored (the cross-channel check counts the processed ones). */
export interface SaleDelivery {
  readonly id: number;
  readonly saleId: number;
  readonly status: string;
  readonly channel: 'postback' | 'webhook';
  readonly state: string;
  /** payload->>'amount', of processed deliveries only. */
  readonly amount: string | null;
}

/**
 * Every delivery of these sales, or of the sales these inbox rows name (a statement that needs
 * no earlier answer). Only the resource index is offered to the planner: a sale has a handful
 * of deliveries, and filtering on state in SQL let stale statistics (taken while a backlog was
 * pending) pick a scan of every processed row instead.
 */
export function saleDeliveries(
  tx: Tx,
  of: { readonly inboxEventIds: readonly number[] } | { readonly saleIds: readonly number[] },
): Promise<SaleDelivery[]> {
  const saleIds =
    'saleIds' in of ? tx`${[...of.saleIds]}::int8[]` : recordsNamedBy(tx, 'sale', of.inboxEventIds);
  return tx<SaleDelivery[]>`
    select id, resource_id as "saleId", notified_status as status, channel, state,
           -- Only a processed delivery's amount is compared: the batch's own rows (pending) are
           -- returned without opening their payloads.
           case when state = 'processed' then payload->>'amount' end as amount
      from inbox_events
     where resource_type = 'sale' and resource_id = any(${saleIds})`.execute();
}

export interface FinishedRow {
  readonly id: number;
  readonly state: 'processed' | 'quarantined';
  readonly outcome: string;
  /** Why: the quarantine reason, or the detail of a processed row's outcome. */
  readonly reason: string | null;
}

/**
 * Records the worker's decision on inbox rows, all in one statement. The ids travel beside the
 * document so that the plan finds each row by the primary key: Postgres guesses 100 rows for a
 * json document, and on a table as small as a new deployment's the cheaper join was a hash join
 * over a sequential scan of the whole table.
 */
export async function finishInboxRows(tx: Tx, rows: readonly FinishedRow[]): Promise<void> {
  if (rows.length === 0) return;
  await tx`
    update inbox_events as i
       set state = v.state,
           outcome = v.outcome,
           quarantine_reason = case when v.state = 'quarantined' then v.reason end,
           last_error = case when v.state = 'processed' then v.reason end,
           attempts = i.attempts + 1,
           processed_at = now()
      from json_to_recordset(${JSON.stringify(rows)}::json)
           as v(id bigint, state text, outcome text, reason text)
     where i.id = v.id and i.id = any(${rows.map((row) => row.id)}::int8[])`.execute();
}

export interface HeldKey {
  readonly inboxEventId: number;
  readonly channel: string;
  readonly eventKey: string;
}

/**
 * Gives back the dedupe keys of deliveries that turned out forged or that the gateway did not
 * confirm: the gateway's real delivery of that event, when it comes, is then processed instead
 * of answered `duplicate`. Only while the key still points at the row that took it.
 */
export async function releaseDedupeKeys(tx: Tx, keys: readonly HeldKey[]): Promise<void> {
  if (keys.length === 0) return;
  await tx`
    delete from inbox_dedupe_keys d
     using json_to_recordset(${JSON.stringify(keys)}::json)
           as k("inboxEventId" bigint, channel text, "eventKey" text)
     where d.channel = k.channel and d.event_key = k."eventKey"
       and d.inbox_event_id = k."inboxEventId"
       and d.channel = any(${keys.map((key) => key.channel)}::text[])
       and d.event_key = any(${keys.map((key) => key.eventKey)}::text[])`.execute();
}

/** Records a failed attempt; after the last one the row is `failed` with its error kept. */
export async function recordFailedAttempt(
  sql: Sql,
  inboxEventId: number,
  lastError: string,
  final: boolean,
): Promise<void> {
  await sql`
    update inbox_events
       set attempts = attempts + 1, last_error = ${lastError}
           ${final ? sql`, state = 'failed', outcome = 'error', processed_at = now()` : sql``}
     where id = ${inboxEventId} and state = 'pending'`.execute();
}
