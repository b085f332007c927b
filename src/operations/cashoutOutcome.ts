import { GatewayError } from '../gateway/index.js';

/**
 * What a failed cashout POST tells about the money. Only a refusal the gateway put in words (a
 * 4xx with one of its error bodies, or a 429: the request was not processed) proves nothing was
 * paid. Anything else — a time-out, a dropped connection, a 5xx, a 4xx from something that is
 * not the gateway, a 2xx that does not decode — may come after the gateway paid.
 */
export function cashoutFailureOutcome(error: unknown): 'rejected' | 'unknown' {
  if (!(error instanceof GatewayError) || error.kind !== 'http' || error.status === null) {
    return 'unknown';
  }
  if (error.status === 429) return 'rejected';
  return error.status >= 400 && error.status < 500 && error.shape !== 'unknown'
    ? 'rejected'
    : 'unknown';
}
