/** A field whose mirror value differs from the gateway's (both known). */
export interface FieldDifference {
  readonly field: string;
  readonly mirrorValue: string | null;
  readonly gatewayValue: string | null;
}

export interface FieldComparison<Insert> {
  /** Fields to write: the mirror lacked them, or held another value. */
  readonly update: Partial<Insert>;
  /** Only the fields where the mirror held another, non-null value. */
  readonly differences: FieldDifference[];
}

/**
 * Compares the mirror row with the gateway's values. The gateway is the truth: every value it
 * gives is written; a null mirror value it fills is not a discrepancy, a non-null
 * one that differs is. Values the gateway does not give are left alone.
 */
export function compareWithGateway<Row extends object, Insert extends object>(
  current: Row,
  gateway: Insert,
): FieldComparison<Insert> {
  const update: Partial<Insert> = {};
  const differences: FieldDifference[] = [];
  for (const key of Object.keys(gateway) as (keyof Insert & string)[]) {
    const wanted = gateway[key];
    if (wanted === null || wanted === undefined) continue;
    const have = (current as Record<string, unknown>)[key];
    if (sameValue(have, wanted)) continue;
    update[key] = wanted;
    if (have !== null && have !== undefined) {
      differences.push({
        field: columnName(key),
        mirrorValue: asText(have),
        gatewayValue: asText(wanted),
      });
    }
  }
  return { update, differences };
}

/** Equal as the mirror stores them: instants by time, JSON whatever its key order (jsonb). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    return canonicalJson(a) === canonicalJson(b);
  }
  return a === b;
}

export function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return canonicalJson(value);
  return String(value);
}

/** JSON with every object's keys sorted: jsonb gives keys back in its own order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.entries(inner as Record<string, unknown>).sort(([a], [b]) =>
            // Stryker disable next-line EqualityOperator,ConditionalExpression: keys are distinct and sort asks only whether a < b: <=, >= and the 1-or-0 branch are equivalents
            a < b ? -1 : a > b ? 1 : 0,
          ),
        )
      : inner,
  );
}

/** camelCase property → the snake_case column finance sees in the discrepancy table. */
function columnName(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}
