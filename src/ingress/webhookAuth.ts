import { createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { IncomingMessage } from 'node:http';

/** Constant-time match of the path token against every configured token. */
export function matchesWebhookToken(token: string, tokens: readonly string[]): boolean {
  const candidate = digest(token);
  let matched = false;
  for (const configured of tokens) {
    matched = timingSafeEqual(candidate, digest(configured)) || matched;
  }
  return matched;
}

function digest(value: string): Buffer {
  // Hashing first gives equal lengths, so timingSafeEqual never throws or leaks the length.
  return createHash('sha256').update(value).digest();
}

export interface SourceAllowlist {
  allows(address: string | null): boolean;
}

/** Null when no CIDR is configured: every source is allowed. */
export function createSourceAllowlist(cidrs: readonly string[]): SourceAllowlist | null {
  if (cidrs.length === 0) return null;
  const list = new BlockList();
  for (const cidr of cidrs) {
    const slash = cidr.indexOf('/');
    // Never read as /0: an address without a prefix length would let every source in.
    if (slash === -1) throw new RangeError(`"${cidr}" is not a CIDR (a.b.c.d/n)`);
    const network = cidr.slice(0, slash);
    list.addSubnet(network, Number(cidr.slice(slash + 1)), isIPv6(network) ? 'ipv6' : 'ipv4');
  }
  return {
    allows(address) {
      if (address === null) return false;
      const plain = unmapIPv4(address);
      if (isIPv4(plain)) return list.check(plain, 'ipv4');
      return isIPv6(plain) && list.check(plain, 'ipv6');
    },
  };
}

/**
 * The delivering address: the socket peer, or, behind `trustedProxies` proxies, the entry
 * that many hops back in X-Forwarded-For (anything further left is the client's to forge).
 */
export function sourceAddressOf(req: IncomingMessage, trustedProxies: number): string | null {
  const peer = req.socket.remoteAddress;
  if (peer === undefined) return null;
  const header = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  const hops = [peer, ...forwarded.reverse()];
  return unmapIPv4(hops[Math.min(trustedProxies, hops.length - 1)] ?? peer);
}

function unmapIPv4(address: string): string {
  return address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;
}
