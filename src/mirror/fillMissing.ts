/**
 * The fields of `candidate` that `current` lacks (null there, known here). Notifications on
 * different channels carry different fields; none of them overwrites what the mirror knows.
 */
export function fillMissing<Row extends object, Insert extends object>(
  current: Row,
  candidate: Insert,
): Partial<Insert> {
  const update: Partial<Insert> = {};
  for (const key of Object.keys(candidate) as (keyof Insert & string)[]) {
    const value = candidate[key];
    if (value === null || value === undefined) continue;
    if ((current as Record<string, unknown>)[key] === null) update[key] = value;
  }
  return update;
}
