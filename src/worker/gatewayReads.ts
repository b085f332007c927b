import { GatewayError } from '../gateway/gatewayError.js';
import type { GatewayClient } from '../gateway/types.js';
import { recordKey, type ReadInput } from '../mirror/inputs.js';

export interface RecordRef {
  readonly resource: 'sale' | 'withdrawal';
  readonly id: number;
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
 * GET), all at once: the client's rate limit paces them. Keyed by recordKey.
 */
export async function readRecords(
  gateway: GatewayClient,
  refs: readonly RecordRef[],
  now: () => Date,
): Promise<Map<string, GatewayRead>> {
  const unique = new Map(refs.map((ref) => [recordKey(ref.resource, ref.id), ref] as const));
  const reads = await Promise.all(
    [...unique].map(async ([key, ref]) => [key, await readOne(gateway, ref, now)] as const),
  );
  return new Map(reads);
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
