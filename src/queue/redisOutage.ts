/**
 * Replies and socket errors that mean Redis was away for a moment (a restart, a failover, a
 * cluster moving slots), not that something is wrong with a job or a script. BullMQ's workers
 * retry through them; a demoted master answers a blocked command UNBLOCKED, a promoted replica
 * may answer LOADING or READONLY for a moment, a cluster CLUSTERDOWN or TRYAGAIN.
 */
const OUTAGE_REPLIES = /^(UNBLOCKED|LOADING|READONLY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN)\b/;
const OUTAGE_MESSAGES = /^Connection is closed\.?$/;
const OUTAGE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
]);

export function isRedisOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' && OUTAGE_CODES.has(code)) return true;
  return OUTAGE_REPLIES.test(error.message) || OUTAGE_MESSAGES.test(error.message);
}
