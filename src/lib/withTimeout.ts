/** A promise that had not settled when its time ran out. */
export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

/**
 * `promise`, or a TimeoutError once `ms` pass without it settling. The promise itself is not
 * cancelled: whatever it was doing may still finish (a store that lands late, say). A rejection
 * after the time ran out is not an unhandled one: the race holds a handler on it.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(ms)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
