import { sql } from 'drizzle-orm';
import type { Tx } from '../db/client.js';

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
  await tx.execute(sql`
    delete from inbox_dedupe_keys d
     using json_to_recordset(${JSON.stringify(keys)}::json)
           as k("inboxEventId" bigint, channel text, "eventKey" text)
     where d.channel = k.channel and d.event_key = k."eventKey"
       and d.inbox_event_id = k."inboxEventId"`);
}
