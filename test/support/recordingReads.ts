/**
 * A read-only list that records which of its indices were read: it shows whether a loop visited
 * every element (a constant-time check must not stop at the first match) without timing it.
 */
export function recordingReads<T>(items: readonly T[]): {
  readonly list: readonly T[];
  indicesRead(): number[];
} {
  const read = new Set<number>();
  const list = new Proxy([...items], {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^(?:0|[1-9][0-9]*)$/.test(key)) read.add(Number(key));
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { list, indicesRead: () => [...read].sort((a, b) => a - b) };
}
