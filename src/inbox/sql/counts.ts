import type { Sql } from '../../db/client.js';

/** What the inbox holds, counted: for metrics, and for the demo's progress and summary. */

/** Seconds since the oldest pending row was received (0 when none is pending). */
export async function oldestPendingAgeSeconds(sql: Sql): Promise<number> {
  const [row] = await sql<{ age: number | null }[]>`
    select extract(epoch from now() - min(received_at))::float8 as age
      from inbox_events where state = 'pending'`;
  return Math.max(0, row?.age ?? 0);
}

/** Rows that still need someone, by state (pending, quarantined, failed). */
export async function inboxCountsByState(sql: Sql): Promise<Record<string, number>> {
  const rows = await sql<{ state: string; n: number }[]>`
    select state, count(*)::int as n from inbox_events
     where state in ('pending', 'quarantined', 'failed') group by state`;
  return Object.fromEntries(rows.map((row) => [row.state, row.n]));
}

export interface InboxTotals {
  readonly total: number;
  readonly processed: number;
  readonly quarantined: number;
  readonly failed: number;
  readonly pending: number;
  /** Deliveries recognised as duplicates of a stored one (delivery_count − 1 summed). */
  readonly duplicatesAbsorbed: number;
}

export async function inboxTotals(sql: Sql): Promise<InboxTotals> {
  const [row] = await sql<InboxTotals[]>`
    select count(*)::int as total,
           count(*) filter (where state = 'processed')::int as processed,
           count(*) filter (where state = 'quarantined')::int as quarantined,
           count(*) filter (where state = 'failed')::int as failed,
           count(*) filter (where state = 'pending')::int as pending,
           coalesce(sum(delivery_count - 1), 0)::int as "duplicatesAbsorbed"
      from inbox_events`;
  return (
    row ?? { total: 0, processed: 0, quarantined: 0, failed: 0, pending: 0, duplicatesAbsorbed: 0 }
  );
}
