import type { Sql, Tx } from '../db/client.js';
import {
  lockInboxRows as lockStoredRows,
  pendingInboxRows,
  type StoredInboxRow,
} from '../inbox/sql/worker.js';
import type { Channel } from '../notifications/notification.js';
import { parseNotification, type ParseResult } from '../notifications/parseNotification.js';

/** An inbox row as the worker reads it, its notification parsed. */
export interface InboxRow extends Omit<StoredInboxRow, 'channel' | 'payload'> {
  readonly channel: Channel;
  readonly payload: Record<string, unknown>;
  readonly parsed: ParseResult;
}

/**
 * Locks the rows, in id order (two batches cannot deadlock on them): a re-run job finds its
 * row finished and does nothing.
 */
export async function lockInboxRows(tx: Tx, ids: readonly number[]): Promise<InboxRow[]> {
  return (await lockStoredRows(tx, ids)).map(withParsed);
}

/** The pending rows without a lock: what a batch will need from the gateway. */
export async function peekPendingRows(sql: Sql, ids: readonly number[]): Promise<InboxRow[]> {
  return (await pendingInboxRows(sql, ids)).map(withParsed);
}

function withParsed(row: StoredInboxRow): InboxRow {
  const channel = row.channel as Channel;
  const payload = (row.payload ?? {}) as Record<string, unknown>;
  return { ...row, channel, payload, parsed: parseNotification(channel, payload) };
}
