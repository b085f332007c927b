import { BODY_HEAD_BYTES, keptBodyBytes, type BodyKept } from '../inbox/keptBody.js';
import { sourceKey } from './authFailureLimiter.js';

/**
 * What the ingress lets unauthenticated requests write to Postgres, bounded in bytes however
 * many sources send them. A rejected delivery (bad signature, unknown token, …) keeps its
 * digest, headers, size and first 1 KiB; its whole body only for a sample of a few per source
 * per hour, enough for `paymirror rejected reverify` after a secret mix-up. A quarantined
 * webhook (its path token is its only credential) keeps its whole body while the budget
 * lasts, then its head: a row is always stored, its answer stays `quarantined` with an id.
 *
 * Everything kept draws from one byte budget per minute (a token bucket refilled
 * continuously); a rejection that does not fit is not stored at all, only counted. Per ingress
 * process: N processes keep at most N budgets.
 */
export interface UnauthenticatedBytes {
  /** What to keep of a rejected delivery from `source`: a sample whole, a head, or nothing. */
  forRejection(source: string | null, bodyBytes: number, otherBytes: number): BodyKept | 'nothing';
  /** What to keep of a quarantined webhook's body: whole while the budget lasts, else its head. */
  forQuarantine(bodyBytes: number, otherBytes: number): BodyKept;
}

type StoredKind = 'rejected' | 'quarantined';

/** One decision, for metrics: bytes kept, and what was not (a whole row, or a body's tail). */
export interface BytesDecision {
  readonly kind: StoredKind;
  readonly keptBytes: number;
  readonly skippedBytes: number;
  readonly skippedRow: boolean;
}

export interface UnauthenticatedBytesOptions {
  /** Bytes kept per minute at most, all sources together; 0: only quarantined heads. */
  readonly bytesPerMinute: number;
  /** Whole rejected bodies kept per source (an IPv6 /64 is one) per hour. */
  readonly samplePerHour: number;
  /** Sources whose samples are remembered at most; default 10 000. */
  readonly maxSources?: number;
  /** Milliseconds; default Date.now. */
  readonly now?: () => number;
  readonly onDecision?: (decision: BytesDecision) => void;
}

/** What a stored row costs beside its body and headers (ids, digest, times, tuple header). */
export const ROW_BYTES = 160;
const HOUR_MS = 3_600_000;

export function createUnauthenticatedBytes(
  options: UnauthenticatedBytesOptions,
): UnauthenticatedBytes {
  const now = options.now ?? Date.now;
  const budget = createByteBudget(options.bytesPerMinute, now);
  const samples = createSampler(options.samplePerHour, options.maxSources ?? 10_000, now);
  const report = (decision: BytesDecision) => options.onDecision?.(decision);

  return {
    forRejection(source, bodyBytes, otherBytes) {
      const fixed = otherBytes + ROW_BYTES;
      const key = sourceKey(source);
      const wantsWhole = bodyBytes > BODY_HEAD_BYTES && samples.available(key);
      for (const kept of wantsWhole ? (['whole', 'head'] as const) : (['head'] as const)) {
        const body = keptBodyBytes(bodyBytes, kept);
        if (!budget.take(body + fixed)) continue;
        if (kept === 'whole') samples.use(key);
        report({
          kind: 'rejected',
          keptBytes: body + fixed,
          skippedBytes: bodyBytes - body,
          skippedRow: false,
        });
        return kept;
      }
      report({ kind: 'rejected', keptBytes: 0, skippedBytes: bodyBytes + fixed, skippedRow: true });
      return 'nothing';
    },
    forQuarantine(bodyBytes, otherBytes) {
      const fixed = otherBytes + ROW_BYTES;
      const kept = budget.take(bodyBytes + fixed) ? 'whole' : 'head';
      const body = keptBodyBytes(bodyBytes, kept);
      // The row is stored whatever the budget says: its head is drawn from it all the same.
      if (kept === 'head') budget.force(body + fixed);
      report({
        kind: 'quarantined',
        keptBytes: body + fixed,
        skippedBytes: bodyBytes - body,
        skippedRow: false,
      });
      return kept;
    },
  };
}

/** Bytes per minute, refilled continuously, at most a minute's worth saved up. */
function createByteBudget(perMinute: number, now: () => number) {
  let tokens = perMinute;
  let at = now();
  const refill = () => {
    const time = now();
    tokens = Math.min(perMinute, tokens + (Math.max(0, time - at) * perMinute) / 60_000);
    at = time;
  };
  return {
    take(bytes: number): boolean {
      refill();
      if (tokens < bytes) return false;
      tokens -= bytes;
      return true;
    },
    force(bytes: number): void {
      refill();
      tokens = Math.max(0, tokens - bytes);
    },
  };
}

/**
 * Each source's whole bodies kept within the last hour. Memory bounded: at most `maxSources`
 * sources (the one sampled least recently goes first), each with at most `perHour` times.
 */
function createSampler(perHour: number, maxSources: number, now: () => number) {
  const taken = new Map<string, number[]>();
  const recent = (key: string): number[] => {
    const cutoff = now() - HOUR_MS;
    const times = (taken.get(key) ?? []).filter((time) => time > cutoff);
    if (times.length === 0) taken.delete(key);
    return times;
  };
  return {
    available(key: string): boolean {
      return perHour > 0 && recent(key).length < perHour;
    },
    use(key: string): void {
      const times = recent(key);
      times.push(now());
      taken.delete(key);
      taken.set(key, times);
      while (taken.size > maxSources) {
        const oldest = taken.keys().next();
        if (oldest.done) break;
        taken.delete(oldest.value);
      }
    },
  };
}

/** The bytes a request's header section takes (what a kept row's `headers` holds, about). */
export function headerBytes(rawHeaders: readonly string[]): number {
  let bytes = 0;
  for (const part of rawHeaders) bytes += Buffer.byteLength(part) + 4;
  return bytes;
}
