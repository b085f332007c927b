/**
 * What Postgres `jsonb` cannot store, checked before it is asked to: a value nested deeper than
 * MAX_JSON_DEPTH (JSON.stringify and Postgres's parser both recurse; past a few thousand levels
 * they throw), U+0000, and a lone UTF-16 surrogate (`"\ud800"` parses in JavaScript; jsonb
 * refuses it, 22P02).
 */
export const MAX_JSON_DEPTH = 256;

/**
 * An escape JSON.stringify writes only for U+0000 and lone surrogates (well-formed pairs are
 * written as characters), and only when its backslash is not itself escaped: `\\u0000` is a
 * backslash followed by text, which jsonb stores fine.
 */
const UNSTORABLE_ESCAPE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/;

export type JsonbText = { ok: true; json: string } | { ok: false; reason: string };

/** The JSON text of `value` for a jsonb column, or why jsonb cannot hold it. Never throws. */
export function jsonbText(value: unknown): JsonbText {
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) {
    return { ok: false, reason: `nested deeper than ${MAX_JSON_DEPTH} levels` };
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    return { ok: false, reason: `not serialisable as JSON: ${(error as Error).message}` };
  }
  if (json === undefined) return { ok: false, reason: 'not a JSON value' };
  if (UNSTORABLE_ESCAPE.test(json)) {
    return {
      ok: false,
      reason: 'contains U+0000 or a lone UTF-16 surrogate, which jsonb cannot store',
    };
  }
  return { ok: true, json };
}

/** Iterative, so the check itself cannot overflow the stack. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [current, depth] = next;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
