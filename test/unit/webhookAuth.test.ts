import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import {
  createSourceAllowlist,
  matchesWebhookToken,
  sourceAddressOf,
} from '../../src/ingress/webhookAuth.js';
import { recordingReads } from '../support/recordingReads.js';

// Counts the constant-time comparisons, which stay the real ones.
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return { ...crypto, timingSafeEqual: vi.fn(crypto.timingSafeEqual) };
});

const request = (peer: string | undefined, forwarded?: string | string[]) =>
  ({
    socket: { remoteAddress: peer },
    headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
  }) as unknown as IncomingMessage;

const TOKEN = 'test-webhook-token-0123456789abc';
const OLD_TOKEN = 'old-webhook-token-0123456789abc';

describe('matchesWebhookToken', () => {
  it('matches the path token against each configured token (rotation)', () => {
    expect(matchesWebhookToken(TOKEN, [TOKEN])).toBe(true);
    expect(matchesWebhookToken(TOKEN, [OLD_TOKEN, TOKEN])).toBe(true);
    expect(matchesWebhookToken(OLD_TOKEN, [OLD_TOKEN, TOKEN])).toBe(true);
    expect(matchesWebhookToken(TOKEN, [OLD_TOKEN])).toBe(false);
    expect(matchesWebhookToken(TOKEN, [])).toBe(false);
    expect(matchesWebhookToken('', [TOKEN])).toBe(false);
  });

  it('compares every configured token, even after one matched (no early return)', () => {
    const tokens = [TOKEN, OLD_TOKEN, 'third-webhook-token-0123456789'];
    for (const presented of [TOKEN, 'unknown-token-0123456789abcdef']) {
      const recorded = recordingReads(tokens);
      vi.mocked(timingSafeEqual).mockClear();
      matchesWebhookToken(presented, recorded.list);
      expect(recorded.indicesRead(), presented).toEqual([0, 1, 2]);
      expect(timingSafeEqual, presented).toHaveBeenCalledTimes(3);
    }
  });
});

describe('createSourceAllowlist', () => {
  it('is null when no CIDR is configured: every source is allowed', () => {
    expect(createSourceAllowlist([])).toBeNull();
  });

  it('allows exactly the configured IPv4 and IPv6 networks', () => {
    const allowlist = createSourceAllowlist(['203.0.113.0/24', '2001:db8::/32']);
    expect(allowlist?.allows('203.0.113.7')).toBe(true);
    expect(allowlist?.allows('203.0.114.7')).toBe(false);
    expect(allowlist?.allows('2001:db8::1')).toBe(true);
    expect(allowlist?.allows('2001:db9::1')).toBe(false);
  });

  it('takes the prefix length as written, not the whole address', () => {
    const allowlist = createSourceAllowlist(['10.1.0.0/16']);
    expect(allowlist?.allows('10.1.200.3')).toBe(true);
    expect(allowlist?.allows('10.2.0.1')).toBe(false);
  });

  it('checks an IPv4-mapped IPv6 address as the IPv4 address it carries', () => {
    const allowlist = createSourceAllowlist(['203.0.113.0/24']);
    expect(allowlist?.allows('::ffff:203.0.113.7')).toBe(true);
    expect(allowlist?.allows('::ffff:198.51.100.7')).toBe(false);
  });

  it('refuses an unknown source, and anything that is not an address', () => {
    const allowlist = createSourceAllowlist(['0.0.0.0/0', '::/0']);
    expect(allowlist?.allows('198.51.100.7')).toBe(true);
    expect(allowlist?.allows('2001:db8::1')).toBe(true);
    expect(allowlist?.allows(null)).toBe(false);
    expect(allowlist?.allows('')).toBe(false);
    expect(allowlist?.allows('not-an-address')).toBe(false);
    expect(allowlist?.allows('::ffff:not-an-address')).toBe(false);
  });

  it('refuses an address without a prefix length instead of reading it as /0', () => {
    expect(() => createSourceAllowlist(['203.0.113.7'])).toThrow(
      new RangeError('"203.0.113.7" is not a CIDR (a.b.c.d/n)'),
    );
    expect(createSourceAllowlist(['203.0.113.7/32'])?.allows('203.0.113.8')).toBe(false);
  });

  it('unmaps only an IPv4-mapped address, not any IPv6 address ending in IPv4 notation', () => {
    const allowlist = createSourceAllowlist(['1.2.3.0/24']);
    expect(allowlist?.allows('::ffff:1.2.3.4')).toBe(true);
    expect(allowlist?.allows('1:2:3::1.2.3.4')).toBe(false);
    expect(sourceAddressOf(request('1:2:3::1.2.3.4'), 0)).toBe('1:2:3::1.2.3.4');
  });

  it('never lets an IPv4 source through an IPv6-only list, nor the reverse', () => {
    expect(createSourceAllowlist(['2001:db8::/32'])?.allows('198.51.100.7')).toBe(false);
    expect(createSourceAllowlist(['0.0.0.0/0'])?.allows('2001:db8::1')).toBe(false);
  });
});

describe('sourceAddressOf', () => {
  it('without trusted proxies: the socket peer, whatever X-Forwarded-For says', () => {
    expect(sourceAddressOf(request('198.51.100.1', '203.0.113.7'), 0)).toBe('198.51.100.1');
    expect(sourceAddressOf(request('::ffff:198.51.100.1'), 0)).toBe('198.51.100.1');
    expect(sourceAddressOf(request('2001:db8::1'), 0)).toBe('2001:db8::1');
    expect(sourceAddressOf(request(undefined, '203.0.113.7'), 0)).toBeNull();
    expect(sourceAddressOf(request(undefined, '203.0.113.7'), 1)).toBeNull();
  });

  it('behind N proxies: the entry N hops back, never one further left (the client forges those)', () => {
    const req = request('10.0.0.1', '192.0.2.66, 203.0.113.7, 10.0.0.2');
    expect(sourceAddressOf(req, 1)).toBe('10.0.0.2');
    expect(sourceAddressOf(req, 2)).toBe('203.0.113.7');
    expect(sourceAddressOf(req, 3)).toBe('192.0.2.66');
  });

  it('with more trusted proxies than hops: the leftmost entry', () => {
    expect(sourceAddressOf(request('10.0.0.1', '203.0.113.7'), 5)).toBe('203.0.113.7');
    expect(sourceAddressOf(request('10.0.0.1'), 5)).toBe('10.0.0.1');
    expect(sourceAddressOf(request('::ffff:10.0.0.1'), 5)).toBe('10.0.0.1');
  });

  it('reads repeated headers as one list, skipping blank entries and spaces', () => {
    const req = request('10.0.0.1', ['192.0.2.66', ' 203.0.113.7 ,, ']);
    expect(sourceAddressOf(req, 1)).toBe('203.0.113.7');
    expect(sourceAddressOf(req, 2)).toBe('192.0.2.66');
    expect(sourceAddressOf(request('10.0.0.1', '::ffff:203.0.113.7'), 1)).toBe('203.0.113.7');
  });
});
