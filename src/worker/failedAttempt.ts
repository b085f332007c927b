import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { inboxEvents } from '../db/schema.js';

/** Records a failed attempt; after the last one the row is `failed` with its error kept. */
export async function recordFailedAttempt(
  db: Db,
  inboxEventId: number,
  error: unknown,
  final: boolean,
): Promise<void> {
  await db
    .update(inboxEvents)
    .set({
      attempts: sql`${inboxEvents.attempts} + 1`,
      lastError: describeFailure(error).slice(0, 4000),
      ...(final ? { state: 'failed', outcome: 'error', processedAt: sql`now()` } : {}),
    })
    .where(sql`${inboxEvents.id} = ${inboxEventId} and ${inboxEvents.state} = 'pending'`);
}

/** Drizzle wraps driver errors in "Failed query: …"; the cause is what a person needs. */
function describeFailure(error: unknown): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? `${current.name}: ${current.message}` : String(current);
}
