import { userIdSchema } from '../notifications/wireSchemas.js';

/**
 * Whose delivery this is. The gateway signs every seller's postbacks with one service-wide key,
 * and anyone can point their own sale's postbackUrl at us: a valid signature proves the gateway
 * sent it, only `userId` says it is ours (docs/gateway.md 6.3, 6.4). Webhooks carry it too.
 * - 'invalid': missing or not an integer (postbacks must carry it);
 * - 'foreign': another seller's (only when SELLER_USER_ID is configured);
 * - 'ours'.
 */
export type SellerVerdict = 'ours' | 'invalid' | 'foreign';

export function sellerOf(
  payload: Record<string, unknown>,
  sellerUserId: number | null,
): SellerVerdict {
  const userId = userIdSchema.safeParse(payload.userId);
  if (!userId.success) return 'invalid';
  return sellerUserId === null || userId.data === sellerUserId ? 'ours' : 'foreign';
}
