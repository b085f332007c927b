/**
 * A Retry-After header (RFC 9110 10.2.3) as whole seconds from now: delta-seconds ("120") or
 * an HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT", 0 once past). Null when absent or unreadable.
 */
export function parseRetryAfter(header: string | null, nowMs: number): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (/^[0-9]+$/.test(value)) {
    const seconds = Number(value);
    return Number.isSafeInteger(seconds) ? seconds : null;
  }
  // Only date-shaped values: Date.parse also accepts bare numbers and other oddities.
  if (!/[a-z]/i.test(value)) return null;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}
