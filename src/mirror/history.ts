import { statusHistory } from '../db/schema.js';
import type { Tx } from '../db/client.js';

export type HistorySource = 'postback' | 'webhook' | 'reconcile' | 'api';

export interface ChangeContext {
  readonly source: HistorySource;
  /** Null when the change did not come from a notification. */
  readonly inboxEventId: number | null;
}

export async function appendHistory(
  tx: Tx,
  resourceType: 'sale' | 'withdrawal',
  resourceId: number,
  fromStatus: string | null,
  toStatus: string,
  context: ChangeContext,
): Promise<void> {
  await tx.insert(statusHistory).values({
    resourceType,
    resourceId,
    fromStatus,
    toStatus,
    source: context.source,
    inboxEventId: context.inboxEventId,
  });
}
