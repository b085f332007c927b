import type { ErrorShape } from './gatewayError.js';
import { errorShapeA, errorShapeB, errorShapeC } from './wireSchemas.js';

/** What a non-2xx body says, whichever of the three shapes of docs/gateway.md 2.4 it took. */
export interface ErrorBody {
  readonly shape: ErrorShape;
  /** The body's human message; null when it has none. */
  readonly message: string | null;
  /** Shape A's errorType (INSUFFICIENT_BALANCE, MINIMUM_VALUE, …). */
  readonly errorType: string | null;
  /** Shape C's error.code (UNAUTHORIZED, FORBIDDEN). */
  readonly code: string | null;
}

const MAX_MESSAGE_LENGTH = 500;

function bounded(message: string): string {
  return message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH)}…` : message;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * C first (its `error` is an object), then A when an errorType is present, then B (`error`
 * is a string), then A with a bare `message`. Anything else (HTML from a proxy, empty) is
 * 'unknown'.
 */
export function classifyErrorBody(text: string): ErrorBody {
  const body = parseJson(text);

  const c = errorShapeC.safeParse(body);
  if (c.success) {
    return {
      shape: 'C',
      message: bounded(c.data.error.message),
      errorType: null,
      code: c.data.error.code,
    };
  }
  const a = errorShapeA.safeParse(body);
  if (a.success && a.data.errorType !== undefined) {
    return {
      shape: 'A',
      message: bounded(a.data.message),
      errorType: a.data.errorType,
      code: null,
    };
  }
  const b = errorShapeB.safeParse(body);
  if (b.success) {
    return {
      shape: 'B',
      message: bounded(b.data.message || b.data.error),
      errorType: null,
      code: null,
    };
  }
  if (a.success) {
    return { shape: 'A', message: bounded(a.data.message), errorType: null, code: null };
  }
  return { shape: 'unknown', message: null, errorType: null, code: null };
}
