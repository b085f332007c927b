/**
 * For a state machine given as a table of edges, the statuses reachable from each status in
 * one or more edges (a notification may skip steps that were never notified).
 */
export function reachability<S extends string>(
  statuses: readonly S[],
  next: (status: S) => readonly S[],
): Readonly<Record<S, ReadonlySet<S>>> {
  const reach = {} as Record<S, ReadonlySet<S>>;
  for (const start of statuses) {
    const seen = new Set<S>();
    const todo = [...next(start)];
    for (let s = todo.pop(); s !== undefined; s = todo.pop()) {
      if (seen.has(s)) continue;
      seen.add(s);
      todo.push(...next(s));
    }
    reach[start] = seen;
  }
  return reach;
}
