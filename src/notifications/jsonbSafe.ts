import { isUtf8 } from 'node:buffer';

/**
 * What Postgres `jsonb` cannot store, checked before it is asked to: a value nested deeper than
 * MAX_JSON_DEPTH (JSON.stringify and Postgres's parser both recurse; past a few thousand levels
 * they throw), U+0000, and a lone UTF-16 surrogate (`"\ud800"` parses in JavaScript; jsonb
 * refuses it, 22P02).
 */
export const MAX_JSON_DEPTH = 256;

const UNSTORABLE_STRING = 'contains U+0000 or a lone UTF-16 surrogate, which jsonb cannot store';

export type JsonbText = { ok: true; json: string } | { ok: false; reason: string };

/**
 * The JSON text of `value` (as JSON.parse makes them) for a jsonb column, or why jsonb cannot
 * hold it. Never throws.
 */
export function jsonbText(value: unknown): JsonbText {
  const reason = unstorableIn(value);
  if (reason !== null) return { ok: false, reason };
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    return { ok: false, reason: `not serialisable as JSON: ${(error as Error).message}` };
  }
  if (json === undefined) return { ok: false, reason: 'not a JSON value' };
  return { ok: true, json };
}

/** Whether jsonb can hold `value` (as JSON.parse makes them), without serialising it. */
export function jsonbHolds(value: unknown): boolean {
  return unstorableIn(value) === null;
}

/**
 * Why jsonb cannot hold the value, or null: nested too deep, or a string (a key too) with U+0000
 * or a lone surrogate. Recursive, but never deeper than MAX_JSON_DEPTH.
 */
function unstorableIn(value: unknown, depth = 0): string | null {
  if (typeof value === 'string') return storableString(value) ? null : UNSTORABLE_STRING;
  if (typeof value !== 'object' || value === null) return null;
  if (depth >= MAX_JSON_DEPTH) return `nested deeper than ${MAX_JSON_DEPTH} levels`;
  if (Array.isArray(value)) {
    for (const child of value as unknown[]) {
      const reason = unstorableIn(child, depth + 1);
      if (reason !== null) return reason;
    }
    return null;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    if (!storableString(key)) return UNSTORABLE_STRING;
    const reason = unstorableIn(record[key], depth + 1);
    if (reason !== null) return reason;
  }
  return null;
}

function storableString(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000');
}

/** Digits a number may have and still be taken as written: numeric holds 16,383 after the point. */
const MAX_NUMBER_DIGITS = 1000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LOWER_U = 0x75;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const DOT = 0x2e;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

/**
 * Whether Postgres can take this JSON text, which JSON.parse accepted, into jsonb as it is: the
 * value it stores is then the one JSON.parse read, and the text need not be serialised again
 * (JSON.stringify of a gateway's 1.5 KB postback was about a twentieth of the ingress's CPU).
 * Conservative: false only means "serialise the parsed value and check that" (jsonbText).
 *
 * True when the text is valid UTF-8 (else node read replacement characters where Postgres would
 * refuse it), has no `\u` escape (the only way JSON can write U+0000 or a lone surrogate), fewer
 * opening brackets than MAX_JSON_DEPTH (it cannot nest deeper than that), and no number with an
 * exponent or more than MAX_NUMBER_DIGITS digits (numeric's range is narrower than JSON's:
 * `1e131072` overflows it). A number is then kept as written (`10.50`, a 20-digit integer), not
 * as the double JSON.parse made of it; both read back as that double.
 */
export function jsonbTakesAsIs(text: Buffer): boolean {
  if (!isUtf8(text)) return false;
  // The next backslash at or after where the scan is; -1 when none is left.
  let backslash = text.indexOf(BACKSLASH);
  let opened = 0;
  let digits = 0;
  for (let at = 0; at < text.length; at += 1) {
    const byte = text[at] ?? 0;
    if (byte === QUOTE) {
      // A string: jump to its closing quote, looking only at its escapes.
      for (let from = at + 1; ;) {
        const quote = text.indexOf(QUOTE, from);
        if (quote < 0) return false;
        if (backslash >= 0 && backslash < from) backslash = text.indexOf(BACKSLASH, from);
        if (backslash < 0 || backslash > quote) {
          at = quote;
          break;
        }
        if (text[backslash + 1] === LOWER_U) return false;
        from = backslash + 2;
      }
      digits = 0;
    } else if (byte >= DIGIT_0 && byte <= DIGIT_9) {
      digits += 1;
      if (digits > MAX_NUMBER_DIGITS) return false;
    } else if (byte === LOWER_E || byte === UPPER_E) {
      // After a digit, an exponent; `true` and `false` have theirs after a letter.
      if (digits > 0) return false;
    } else if (byte !== DOT) {
      digits = 0;
      if ((byte === OPEN_BRACE || byte === OPEN_BRACKET) && ++opened >= MAX_JSON_DEPTH) {
        return false;
      }
    }
  }
  return true;
}
