import type { Sql, Tx } from '../../db/client.js';
import { insertRows } from '../../db/jsonRows.js';
import type { HistoryInsert } from '../../db/rows.js';
import { statusHistory } from '../../db/schema.js';

/** The statements on `status_history`: the writer's, and the transition feed's outbox. */

export interface SeenStatus {
  readonly resourceType: 'sale' | 'withdrawal';
  readonly resourceId: number;
  readonly toStatus: string;
}

/**
 * The statuses already in these records' history. A resource without ids is left out of the
 * statement (planning it is most of the cost in a small batch); with neither, nothing is sent.
 */
export async function seenStatuses(
  tx: Tx,
  ids: { readonly sale: readonly number[]; readonly withdrawal: readonly number[] },
): Promise<SeenStatus[]> {
  const branches = (['sale', 'withdrawal'] as const)
    .filter((resource) => ids[resource].length > 0)
    .map(
      (resource) =>
        tx`(resource_type = ${resource} and resource_id = any(${[...ids[resource]]}::int8[]))`,
    );
  const [first, second] = branches;
  if (!first) return [];
  return tx<SeenStatus[]>`
    select distinct resource_type as "resourceType", resource_id as "resourceId",
           to_status as "toStatus"
      from status_history
     where ${first} ${second ? tx`or ${second}` : tx``}`.execute();
}

export async function insertHistory(tx: Tx, rows: readonly HistoryInsert[]): Promise<void> {
  await insertRows(tx, statusHistory, rows);
}

/** A status_history row as the transition feed publishes it. */
export interface Transition {
  readonly id: number;
  readonly resourceType: 'sale' | 'withdrawal';
  readonly resourceId: number;
  readonly fromStatus: string | null;
  readonly toStatus: string;
  readonly source: 'postback' | 'webhook' | 'reconcile' | 'api';
  readonly recordedAt: Date;
}

const TRANSITION_FIELDS = (sql: Sql | Tx) => sql`
  id, resource_type as "resourceType", resource_id as "resourceId", from_status as "fromStatus",
  to_status as "toStatus", source, recorded_at as "recordedAt"`;

/** The oldest rows not yet published, in id order (per record, the order they committed in). */
export function unpublishedTransitions(tx: Tx, limit: number): Promise<Transition[]> {
  return tx<Transition[]>`
    select ${TRANSITION_FIELDS(tx)} from status_history
     where published_at is null order by id limit ${limit}`.execute();
}

export async function markPublished(tx: Tx, ids: readonly number[]): Promise<void> {
  await tx`update status_history set published_at = now() where id = any(${[...ids]}::int8[])`.execute();
}

export async function transitionById(sql: Sql, id: number): Promise<Transition | null> {
  const [row] = await sql<Transition[]>`
    select ${TRANSITION_FIELDS(sql)} from status_history where id = ${id}`.execute();
  return row ?? null;
}

/** Whether any of the latest `recent` rows (by the primary key) was published. */
export async function recentlyPublished(sql: Sql, recent: number): Promise<boolean> {
  const [row] = await sql<{ published: boolean }[]>`
    select coalesce(bool_or(published_at is not null), false) as published
      from (select published_at from status_history order by id desc limit ${recent}) as latest`.execute();
  return row?.published ?? false;
}
