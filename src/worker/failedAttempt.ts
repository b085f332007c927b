import type { Sql } from '../db/client.js';
import { recordFailedAttempt as recordAttempt } from '../inbox/sql/worker.js';

/** Records a failed attempt; after the last one the row is `failed` with its error kept. */
export async function recordFailedAttempt(
  sql: Sql,
  inboxEventId: number,
  error: unknown,
  final: boolean,
): Promise<void> {
  await recordAttempt(sql, inboxEventId, describeFailure(error).slice(0, 4000), final);
}

/** The innermost cause of a wrapped error is what a person needs. */
function describeFailure(error: unknown): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? `${current.name}: ${current.message}` : String(current);
}
