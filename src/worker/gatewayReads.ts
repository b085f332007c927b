import { GatewayError } from '../gateway/gatewayError.js';
import type { GatewayClient } from '../gateway/types.js';
import { recordKey, type ReadInput } from '../mirror/inputs.js';

export interface RecordRef {
  readonly resource: 'sale' | 'withdrawal';
  readonly id: number;
}

/** A record to read for rows received up to `notBefore`: a read begun earlier cannot judge them. */
export interface ReadRequest extends RecordRef {
  readonly notBefore: Date;
}

/** What the gateway said of one record. */
export type GatewayRead =
  | { readonly kind: 'record'; readonly read: Pick<ReadInput, 'resource' | 'record' | 'readAt'> }
  /** 404 or 403 in shape B: the record does not exist, or is not ours. */
  | { readonly kind: 'not_ours'; readonly httpStatus: number }
  /** No usable answer (down, limited, indeterminate): the rows waiting on it retry later. */
  | { readonly kind: 'failed'; readonly error: unknown };

/**
 * Reads each record once, however many rows wait on it (many webhooks for one id need one
 * GET), all at once: the client's rate limit paces them. With `recent`, a read of the same
 * record begun after every waiting row was received (in flight, or answered a moment ago) is
 * used instead of a new GET. Keyed by recordKey.
 */
export async function readRecords(
  gateway: GatewayClient,
  requests: readonly ReadRequest[],
  now: () => Date,
  recent: RecentReads | null = null,
): Promise<Map<string, GatewayRead>> {
  const unique = new Map<string, ReadRequest>();
  for (const request of requests) {
    const key = recordKey(request.resource, request.id);
    const seen = unique.get(key);
    if (!seen || seen.notBefore < request.notBefore) unique.set(key, request);
  }
  const reads = await Promise.all(
    [...unique].map(async ([key, request]) => {
      const reused = recent?.find(key, request.notBefore, now());
      if (reused) return [key, await reused] as const;
      const read = readOne(gateway, request, now);
      recent?.remember(key, now(), read);
      return [key, await read] as const;
    }),
  );
  return new Map(reads);
}

/**
 * The reads of the last moments, in flight or answered, by record: the rows of many batches
 * waiting on one record share one GET. Failed reads are forgotten at once.
 */
export interface RecentReads {
  find(key: string, notBefore: Date, at: Date): Promise<GatewayRead> | undefined;
  remember(key: string, readAt: Date, read: Promise<GatewayRead>): void;
}

export function createRecentReads(ttlMs = 2000, maxRecords = 10_000): RecentReads {
  const reads = new Map<string, { readonly readAt: Date; readonly read: Promise<GatewayRead> }>();
  return {
    find(key, notBefore, at) {
      const entry = reads.get(key);
      if (!entry) return undefined;
      if (at.getTime() - entry.readAt.getTime() > ttlMs) {
        reads.delete(key);
        return undefined;
      }
      return entry.readAt >= notBefore ? entry.read : undefined;
    },
    remember(key, readAt, read) {
      reads.delete(key);
      reads.set(key, { readAt, read });
      void read.then((answer) => {
        if (answer.kind === 'failed' && reads.get(key)?.read === read) reads.delete(key);
      });
      while (reads.size > maxRecords) {
        const oldest = reads.keys().next();
        if (oldest.done) break;
        reads.delete(oldest.value);
      }
    },
  };
}

async function readOne(
  gateway: GatewayClient,
  ref: RecordRef,
  now: () => Date,
): Promise<GatewayRead> {
  const readAt = now();
  try {
    return ref.resource === 'sale'
      ? {
          kind: 'record',
          read: { resource: 'sale', record: await gateway.getTransaction(ref.id), readAt },
        }
      : {
          kind: 'record',
          read: { resource: 'withdrawal', record: await gateway.getWithdrawal(ref.id), readAt },
        };
  } catch (error) {
    if (error instanceof GatewayError && error.isNotOurs) {
      return { kind: 'not_ours', httpStatus: error.status ?? 0 };
    }
    return { kind: 'failed', error };
  }
}
