import { GatewayError } from '../gateway/gatewayError.js';
import type { GatewayClient } from '../gateway/types.js';
import { recordKey, type ReadInput } from '../mirror/inputs.js';

export interface RecordRef {
  readonly resource: 'sale' | 'withdrawal';
  readonly id: number;
}

/**
 * A record to read for rows received up to `notBefore`: a read begun earlier cannot judge them,
 * unless `acceptEarlier` (webhooks, on their first round): a read already in flight or just
 * answered is taken, and a row it cannot judge (it does not confirm the row) is read again.
 */
export interface ReadRequest extends RecordRef {
  readonly notBefore: Date;
  readonly acceptEarlier?: boolean;
}

/** What the gateway said of one record, and when the read was asked for. */
export type GatewayRead =
  | { readonly kind: 'record'; readonly read: Pick<ReadInput, 'resource' | 'record' | 'readAt'> }
  /** 404 or 403 in shape B: the record does not exist, or is not ours. */
  | { readonly kind: 'not_ours'; readonly httpStatus: number; readonly readAt: Date }
  /** No usable answer (down, limited, indeterminate): the rows waiting on it retry later. */
  | { readonly kind: 'failed'; readonly error: unknown; readonly readAt: Date };

function readAtOf(read: GatewayRead): Date {
  return read.kind === 'record' ? read.read.readAt : read.readAt;
}

/**
 * The clocks of a batch of reads. Observation order compares a read's time with delivery
 * receipts, which Postgres stamps: a read's time is the database's too, taken before any GET
 * is sent, never this host's clock (docs/architecture.md, "Observation order").
 */
export interface ReadClock {
  /** The database's time before the reads begin: every new read's readAt. */
  readonly readAt: Date;
  /** This host's clock: only to age the recent reads (durations on one clock). */
  readonly now: () => Date;
}

/** The reads of a batch by recordKey, and those it joined that began before some of its rows. */
export interface BatchReads {
  readonly reads: Map<string, GatewayRead>;
  /** Records whose read began before one of the rows waiting on it was received. */
  readonly joined: Set<string>;
  /** Records whose read another batch began (joined or not): this batch did not start it. */
  readonly reused: Set<string>;
}

/**
 * Reads each record once, however many rows wait on it (many webhooks for one id need one
 * GET), all at once: the client's rate limit paces them. With `recent`, a read of the same
 * record in flight, or answered a moment ago, is used instead of a new GET when it began after
 * every waiting row was received, or when the rows accept an earlier one (then it is `joined`).
 */
export async function readRecords(
  gateway: GatewayClient,
  requests: readonly ReadRequest[],
  clock: ReadClock,
  recent: RecentReads | null = null,
): Promise<BatchReads> {
  const { now } = clock;
  const unique = new Map<string, ReadRequest>();
  for (const request of requests) {
    const key = recordKey(request.resource, request.id);
    const seen = unique.get(key);
    unique.set(
      key,
      seen
        ? {
            ...request,
            notBefore: seen.notBefore < request.notBefore ? request.notBefore : seen.notBefore,
            acceptEarlier: (seen.acceptEarlier ?? false) && (request.acceptEarlier ?? false),
          }
        : request,
    );
  }
  const joined = new Set<string>();
  const reused = new Set<string>();
  const reads = await Promise.all(
    [...unique].map(async ([key, request]) => {
      const earlier = recent?.find(key, request, now());
      if (earlier) {
        reused.add(key);
        const answer = await earlier;
        if (readAtOf(answer) < request.notBefore) joined.add(key);
        return [key, answer] as const;
      }
      const read = readOne(gateway, request, clock.readAt);
      recent?.remember(key, clock.readAt, read, now);
      return [key, await read] as const;
    }),
  );
  return { reads: new Map(reads), joined, reused };
}

/**
 * The reads of the last moments, by record: in flight (however long they wait on the gateway
 * budget), or answered less than `ttlMs` ago. The rows of many batches waiting on one record
 * share one GET. Failed reads are forgotten at once.
 */
export interface RecentReads {
  find(
    key: string,
    request: Pick<ReadRequest, 'notBefore' | 'acceptEarlier'>,
    at: Date,
  ): Promise<GatewayRead> | undefined;
  remember(key: string, readAt: Date, read: Promise<GatewayRead>, now?: () => Date): void;
}

export function createRecentReads(ttlMs = 2000, maxRecords = 10_000): RecentReads {
  interface Entry {
    readonly readAt: Date;
    readonly read: Promise<GatewayRead>;
    answeredAt: Date | null;
  }
  const reads = new Map<string, Entry>();
  return {
    find(key, request, at) {
      const entry = reads.get(key);
      if (!entry) return undefined;
      if (entry.answeredAt && at.getTime() - entry.answeredAt.getTime() > ttlMs) {
        reads.delete(key);
        return undefined;
      }
      return entry.readAt >= request.notBefore || request.acceptEarlier ? entry.read : undefined;
    },
    remember(key, readAt, read, now = () => new Date()) {
      const entry: Entry = { readAt, read, answeredAt: null };
      reads.delete(key);
      reads.set(key, entry);
      void read.then((answer) => {
        entry.answeredAt = now();
        if (answer.kind === 'failed' && reads.get(key) === entry) reads.delete(key);
      });
      while (reads.size > maxRecords) {
        const oldest = reads.keys().next();
        if (oldest.done) break;
        reads.delete(oldest.value);
      }
    },
  };
}

async function readOne(gateway: GatewayClient, ref: RecordRef, readAt: Date): Promise<GatewayRead> {
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
      return { kind: 'not_ours', httpStatus: error.status ?? 0, readAt };
    }
    return { kind: 'failed', error, readAt };
  }
}
