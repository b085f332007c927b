import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAuthFailureLimiter, sourceKey } from '../../src/ingress/authFailureLimiter.js';

/** A clock the test moves by hand. */
function manualClock(start = 1_000_000) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

describe('createAuthFailureLimiter', () => {
  it('blocks a source at its maxFailures-th failure within the window, and only that source', () => {
    const clock = manualClock();
    const limiter = createAuthFailureLimiter({ maxFailures: 3, windowMs: 10_000, now: clock.now });
    for (let i = 0; i < 2; i += 1) {
      limiter.recordFailure('203.0.113.7');
      expect(limiter.isBlocked('203.0.113.7')).toBe(false);
      clock.advance(100);
    }
    limiter.recordFailure('203.0.113.7');
    expect(limiter.isBlocked('203.0.113.7')).toBe(true);
    expect(limiter.isBlocked('203.0.113.8')).toBe(false);
    expect(limiter.isBlocked(null)).toBe(false);
  });

  it('unblocks when the oldest failure leaves the window, and says how long in Retry-After seconds', () => {
    const clock = manualClock();
    const limiter = createAuthFailureLimiter({ maxFailures: 2, windowMs: 60_000, now: clock.now });
    limiter.recordFailure('198.51.100.1'); // t = 0
    clock.advance(15_000);
    limiter.recordFailure('198.51.100.1'); // t = 15 s
    expect(limiter.retryAfterSeconds('198.51.100.1')).toBe(45);
    clock.advance(44_500); // t = 59.5 s: the first failure is still inside the window
    expect(limiter.isBlocked('198.51.100.1')).toBe(true);
    expect(limiter.retryAfterSeconds('198.51.100.1')).toBe(1);
    clock.advance(500); // t = 60 s: the first failure is exactly windowMs old
    expect(limiter.isBlocked('198.51.100.1')).toBe(false);
    expect(limiter.retryAfterSeconds('198.51.100.1')).toBe(0);
    limiter.recordFailure('198.51.100.1'); // t = 60 s: with the one of t = 15 s, blocked again
    expect(limiter.isBlocked('198.51.100.1')).toBe(true);
    expect(limiter.retryAfterSeconds('198.51.100.1')).toBe(15);
  });

  it('is a sliding window: failures spread out never block, a burst does', () => {
    const clock = manualClock();
    const limiter = createAuthFailureLimiter({ maxFailures: 5, windowMs: 1000, now: clock.now });
    for (let i = 0; i < 100; i += 1) {
      limiter.recordFailure('192.0.2.1');
      expect(limiter.isBlocked('192.0.2.1')).toBe(false);
      clock.advance(250); // 4 per window
    }
    for (let i = 0; i < 5; i += 1) limiter.recordFailure('192.0.2.1');
    expect(limiter.isBlocked('192.0.2.1')).toBe(true);
  });

  it('forgets a source whose failures all left the window', () => {
    const clock = manualClock();
    const limiter = createAuthFailureLimiter({ maxFailures: 3, windowMs: 1000, now: clock.now });
    limiter.recordFailure('192.0.2.1');
    limiter.recordFailure('192.0.2.2');
    expect(limiter.size()).toBe(2);
    clock.advance(1000);
    expect(limiter.isBlocked('192.0.2.1')).toBe(false);
    expect(limiter.size()).toBe(1);
  });

  it('keeps at most maxSources sources, evicting the one whose last failure is oldest', () => {
    const clock = manualClock();
    const limiter = createAuthFailureLimiter({
      maxFailures: 2,
      windowMs: 60_000,
      maxSources: 3,
      now: clock.now,
    });
    for (const address of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
      limiter.recordFailure(address);
      limiter.recordFailure(address);
      clock.advance(1);
    }
    // 10.0.0.1 fails again: now 10.0.0.2 is the least recent.
    limiter.recordFailure('10.0.0.1');
    limiter.recordFailure('10.0.0.4');
    expect(limiter.size()).toBe(3);
    expect(limiter.isBlocked('10.0.0.1')).toBe(true);
    expect(limiter.isBlocked('10.0.0.2')).toBe(false); // evicted
    expect(limiter.isBlocked('10.0.0.3')).toBe(true);
  });

  it('memory stays bounded whatever the traffic', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.ipV4(), fc.nat({ max: 5000 })), { maxLength: 500 }),
        fc.integer({ min: 1, max: 30 }),
        (events, maxSources) => {
          const clock = manualClock();
          const limiter = createAuthFailureLimiter({
            maxFailures: 4,
            windowMs: 10_000,
            maxSources,
            now: clock.now,
          });
          for (const [address, wait] of events) {
            clock.advance(wait);
            limiter.recordFailure(address);
            expect(limiter.size()).toBeLessThanOrEqual(maxSources);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('agrees with a naive model: blocked iff maxFailures failures in the last windowMs', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            address: fc.constantFrom('10.0.0.1', '10.0.0.2', '::ffff:10.0.0.1'),
            wait: fc.nat({ max: 400 }),
            fail: fc.boolean(),
          }),
          { maxLength: 200 },
        ),
        fc.integer({ min: 1, max: 6 }),
        (events, maxFailures) => {
          const windowMs = 1000;
          const clock = manualClock();
          const limiter = createAuthFailureLimiter({ maxFailures, windowMs, now: clock.now });
          const log: { key: string; at: number }[] = [];
          for (const { address, wait, fail } of events) {
            clock.advance(wait);
            const key = sourceKey(address);
            const recent = log.filter((e) => e.key === key && e.at > clock.now() - windowMs);
            expect(limiter.isBlocked(address)).toBe(recent.length >= maxFailures);
            // The ingress only records failures of sources it did not block.
            if (fail && recent.length < maxFailures) {
              limiter.recordFailure(address);
              log.push({ key, at: clock.now() });
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses limits that are not positive integers', () => {
    expect(() => createAuthFailureLimiter({ maxFailures: 0 })).toThrow(RangeError);
    expect(() => createAuthFailureLimiter({ windowMs: 1.5 })).toThrow(RangeError);
    expect(() => createAuthFailureLimiter({ maxSources: -1 })).toThrow(RangeError);
  });

  it('defaults to 20 failures a minute', () => {
    const clock = manualClock();
    const limiter = createAuthFailureLimiter({ now: clock.now });
    for (let i = 0; i < 19; i += 1) limiter.recordFailure('192.0.2.9');
    expect(limiter.isBlocked('192.0.2.9')).toBe(false);
    limiter.recordFailure('192.0.2.9');
    expect(limiter.isBlocked('192.0.2.9')).toBe(true);
    expect(limiter.retryAfterSeconds('192.0.2.9')).toBe(60);
    clock.advance(60_000);
    expect(limiter.isBlocked('192.0.2.9')).toBe(false);
  });
});

describe('sourceKey', () => {
  it('counts an IPv4-mapped address as its IPv4 address', () => {
    expect(sourceKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(sourceKey('::FFFF:10.1.2.3')).toBe('10.1.2.3');
  });

  it('counts every IPv6 address as its /64, however it is written', () => {
    const key = sourceKey('2001:db8:0:0:1::2');
    expect(key).toBe('2001:db8:0:0::/64');
    for (const same of [
      '2001:db8::1',
      '2001:DB8:0000:0000:ffff:ffff:ffff:ffff',
      '2001:db8:0:0:ffff::1%eth0',
      '2001:db8::1.2.3.4',
    ]) {
      expect(sourceKey(same)).toBe(key);
    }
    expect(sourceKey('2001:db8:0:1::1')).not.toBe(key);
    expect(sourceKey('::1')).toBe('0:0:0:0::/64');
  });

  it('puts unknown and non-IP sources in one bucket each', () => {
    expect(sourceKey(null)).toBe(sourceKey(''));
    expect(sourceKey('not an address')).toBe(sourceKey('x'.repeat(10_000)));
    expect(sourceKey('not an address')).not.toBe(sourceKey(null));
  });

  it('gives every IPv6 address a /64 key of four groups', () => {
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        expect(sourceKey(address)).toMatch(
          /^[0-9a-f]{1,4}:[0-9a-f]{1,4}:[0-9a-f]{1,4}:[0-9a-f]{1,4}::\/64$|^\d+\.\d+\.\d+\.\d+$/,
        );
      }),
      { numRuns: 300 },
    );
  });
});
