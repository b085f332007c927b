import { sql } from 'drizzle-orm';
import type { Tx } from '../db/client.js';

export interface FinishedRow {
  readonly id: number;
  readonly state: 'processed' | 'quarantined';
  readonly outcome: string;
  /** Why: the quarantine reason, or the detail of a processed row's outcome. */
  readonly reason: string | null;
}

/** Records the worker's decision on inbox rows, all in one statement. */
export async function finishInboxRows(tx: Tx, rows: readonly FinishedRow[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.execute(sql`
    update inbox_events as i
       set state = v.state,
           outcome = v.outcome,
           quarantine_reason = case when v.state = 'quarantined' then v.reason end,
           last_error = case when v.state = 'processed' then v.reason end,
           attempts = i.attempts + 1,
           processed_at = now()
      from json_to_recordset(${JSON.stringify(rows)}::json)
           as v(id bigint, state text, outcome text, reason text)
     where i.id = v.id`);
}
