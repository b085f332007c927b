import { sql } from 'drizzle-orm';
import { bigintArrayParam } from '../db/anyOf.js';
import type { Db, Tx } from '../db/client.js';
import { RowReader } from '../db/rowReader.js';
import { inboxEvents } from '../db/schema.js';
import type { Channel } from '../notifications/notification.js';
import { parseNotification, type ParseResult } from '../notifications/parseNotification.js';
import { executeQuery } from '../db/driverQuery.js';

/** An inbox row as the worker reads it, its notification parsed. */
export interface InboxRow {
  readonly id: number;
  readonly state: string;
  readonly channel: Channel;
  readonly eventKey: string;
  /** What the ingress read the notification to be about (null when it could not tell). */
  readonly resourceType: string | null;
  readonly resourceId: number | null;
  readonly payload: Record<string, unknown>;
  readonly receivedAt: Date;
  readonly parsed: ParseResult;
}

type StoredRow = Omit<InboxRow, 'parsed' | 'channel' | 'payload'> & {
  channel: string;
  payload: unknown;
};

const reader = new RowReader<StoredRow>({
  id: inboxEvents.id,
  state: inboxEvents.state,
  channel: inboxEvents.channel,
  eventKey: inboxEvents.eventKey,
  resourceType: inboxEvents.resourceType,
  resourceId: inboxEvents.resourceId,
  payload: inboxEvents.payload,
  receivedAt: inboxEvents.receivedAt,
});

/**
 * Locks the rows, in id order (two batches cannot deadlock on them): a re-run job finds its
 * row finished and does nothing.
 */
export async function lockInboxRows(tx: Tx, ids: readonly number[]): Promise<InboxRow[]> {
  const rows = await executeQuery<Record<string, unknown>>(
    tx,
    sql`select ${reader.columns} from inbox_events
         where id = any(${bigintArrayParam(ids)}) order by id for update`,
  );
  return rows.map((raw) => withParsed(reader.decode(raw)));
}

/** The pending rows without a lock: what a batch will need from the gateway. */
export async function peekPendingRows(db: Db, ids: readonly number[]): Promise<InboxRow[]> {
  const rows = await executeQuery<Record<string, unknown>>(
    db,
    sql`select ${reader.columns} from inbox_events
         where id = any(${bigintArrayParam(ids)}) and state = 'pending' order by id`,
  );
  return rows.map((raw) => withParsed(reader.decode(raw)));
}

function withParsed(row: StoredRow): InboxRow {
  const channel = row.channel as Channel;
  const payload = (row.payload ?? {}) as Record<string, unknown>;
  return { ...row, channel, payload, parsed: parseNotification(channel, payload) };
}
