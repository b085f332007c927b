/**
 * Whether a storage error means "Postgres cannot be reached or cannot work right now" (spool
 * and retry) rather than "this statement is wrong" (a bug: spooling would only retry it
 * forever). SQLSTATE classes 08 (connection), 53 (resources), 57 (operator intervention:
 * shutdown, restart) and 58 (system) are outages; so is any error without a SQLSTATE
 * (refused, reset, timed out).
 */
export function isStorageOutage(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return ['08', '53', '57', '58'].includes(code.slice(0, 2));
}
