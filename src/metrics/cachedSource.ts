/**
 * A scrape-time source read at most once per `ttlMs`: scrapers share the last answer, and
 * scrapes that come while a read is under way wait for that read instead of starting their own.
 * Unauthenticated /metrics must not turn N scrapers into N times the Postgres and Redis work.
 */
export function cachedSource<T>(
  read: () => Promise<T>,
  ttlMs: number,
  onRead: () => void = () => undefined,
  now: () => number = Date.now,
): () => Promise<T> {
  let last: { value: T; at: number } | null = null;
  let inFlight: Promise<T> | null = null;
  return () => {
    if (last && now() - last.at < ttlMs) return Promise.resolve(last.value);
    inFlight ??= (async () => {
      try {
        onRead();
        const value = await read();
        last = { value, at: now() };
        return value;
      } finally {
        inFlight = null;
      }
    })();
    return inFlight;
  };
}
