import { sql } from 'drizzle-orm';
import type { Tx } from '../db/client.js';
import { jsonLiteral, textArrayLiteral } from '../db/literals.js';
import { executeQuery } from '../db/driverQuery.js';

export interface HeldKey {
  readonly inboxEventId: number;
  readonly channel: string;
  readonly eventKey: string;
}

/**
 * Gives back the dedupe keys of deliveries that turned out forged or that the gateway did not
 * confirm: the gateway's real delivery of that event, when it comes, is then processed instead
 * of answered `duplicate`. Only while the key still points at the row that took it. Planned at
 * each run with the keys it names (no parameters), as finishInboxRows is.
 */
export async function releaseDedupeKeys(tx: Tx, keys: readonly HeldKey[]): Promise<void> {
  if (keys.length === 0) return;
  await executeQuery(
    tx,
    sql`
    delete from inbox_dedupe_keys d
     using json_to_recordset(${jsonLiteral(JSON.stringify(keys))})
           as k("inboxEventId" bigint, channel text, "eventKey" text)
     where d.channel = k.channel and d.event_key = k."eventKey"
       and d.inbox_event_id = k."inboxEventId"
       and d.channel = any(${textArrayLiteral(keys.map((key) => key.channel))})
       and d.event_key = any(${textArrayLiteral(keys.map((key) => key.eventKey))})`,
  );
}
