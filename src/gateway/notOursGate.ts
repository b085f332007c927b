/**
 * Whether a 404 or 403 in shape B may be read as "this record is not ours" now. A wrong base
 * path answers every read with the framework's own 404 (`{"statusCode":404,"message":"Cannot
 * GET …","error":"Not Found"}`), which is shape B too: trusted, it would end every webhook
 * `forged` and drop every reconciled row from the schedule. So the classification waits for the
 * base URL check (GET /api/transactions/{not a number} answers 400), and a breaker pauses it
 * when too many such answers come within a window: they become "cannot tell now", retried.
 */
type BaseUrlState = 'unchecked' | 'ok';

export interface NotOursGateSettings {
  /** This many "not ours" answers within `windowMs` trip the breaker. */
  readonly limit: number;
  readonly windowMs: number;
  /** How long a tripped breaker holds the classification back (and the base URL is re-checked). */
  readonly pauseMs: number;
}

interface NotOursGateStatus {
  readonly baseUrl: BaseUrlState;
  /** The breaker holds the classification back until this instant; null when it does not. */
  readonly pausedUntil: Date | null;
}

export interface NotOursGate {
  /**
   * Called for each 404/403 shape B answer: true lets it be classified "not ours" (and counts
   * it toward the breaker), false makes it "cannot tell now".
   */
  admit(): boolean;
  /** The base URL check passed (or must be made again, after the breaker tripped). */
  setBaseUrl(state: BaseUrlState): void;
  status(): NotOursGateStatus;
}

export interface NotOursGateHooks {
  /** The breaker tripped: `count` answers within the window. */
  readonly onTrip?: (count: number) => void;
  readonly now?: () => number;
}

export function createNotOursGate(
  settings: NotOursGateSettings,
  hooks: NotOursGateHooks = {},
): NotOursGate {
  const now = hooks.now ?? Date.now;
  let baseUrl: BaseUrlState = 'unchecked';
  let pausedUntil = 0;
  let admitted: number[] = [];

  return {
    admit() {
      const at = now();
      if (baseUrl !== 'ok' || at < pausedUntil) return false;
      admitted = admitted.filter((time) => at - time < settings.windowMs);
      if (admitted.length + 1 >= settings.limit) {
        const count = admitted.length + 1;
        admitted = [];
        pausedUntil = at + settings.pauseMs;
        // A run this long is more often a wrong base path than that many forgeries: check again.
        baseUrl = 'unchecked';
        hooks.onTrip?.(count);
        return false;
      }
      admitted.push(at);
      return true;
    },
    setBaseUrl(state) {
      baseUrl = state;
    },
    status() {
      return { baseUrl, pausedUntil: now() < pausedUntil ? new Date(pausedUntil) : null };
    },
  };
}
