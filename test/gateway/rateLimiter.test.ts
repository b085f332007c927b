import { afterEach, describe, expect, it } from 'vitest';
import { createRateLimiter, withinShare } from '../../src/gateway/index.js';
import type { RateLimiter } from '../../src/gateway/index.js';
import { clientFor, startFakeGateway, transactionWire } from './fakeGateway.js';
import type { FakeGateway } from './fakeGateway.js';

/** A clock that only moves when a sleep it handed out is allowed to end. */
function manualClock() {
  let now = 0;
  const timers: { at: number; resolve: () => void }[] = [];
  return {
    now: () => now,
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        timers.push({ at: now + ms, resolve });
      }),
    pending: () => timers.length,
    /** Jump to the earliest pending sleep and end it. */
    advance(): void {
      timers.sort((a, b) => a.at - b.at);
      const next = timers.shift();
      if (!next) throw new Error('no pending sleep');
      now = Math.max(now, next.at);
      next.resolve();
    },
  };
}

/**
 * Yields to the event loop (at least once, so pending promise callbacks run) until `condition`
 * holds: no guessed durations.
 */
async function until(condition: () => boolean): Promise<void> {
  do await new Promise<void>((resolve) => setImmediate(resolve));
  while (!condition());
}

/** Runs `work`, moving the clock to the next pending sleep whenever everything else is idle. */
async function drive<T>(clock: ReturnType<typeof manualClock>, work: Promise<T>): Promise<T> {
  let settled = false;
  const watched = work.finally(() => {
    settled = true;
  });
  while (!settled) {
    await until(() => settled || clock.pending() > 0);
    if (!settled) clock.advance();
  }
  return watched;
}

describe('createRateLimiter', () => {
  it('lets a burst of maxPerSecond through, then spaces callers by 1/R', async () => {
    const clock = manualClock();
    const limiter = createRateLimiter(5, clock);
    const times = await drive(
      clock,
      Promise.all(Array.from({ length: 10 }, () => limiter.acquire().then(() => clock.now()))),
    );
    expect(times).toEqual([0, 0, 0, 0, 0, 200, 400, 600, 800, 1000]);
  });

  it('serves callers first come, first served', async () => {
    const clock = manualClock();
    const limiter = createRateLimiter(2, clock);
    const order: number[] = [];
    await drive(
      clock,
      Promise.all(
        Array.from({ length: 6 }, (_, index) => limiter.acquire().then(() => order.push(index))),
      ),
    );
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('refills while idle, but never beyond the burst', async () => {
    const clock = manualClock();
    const limiter = createRateLimiter(4, clock);
    for (let i = 0; i < 4; i += 1) await limiter.acquire();

    // An hour idle buys 4 tokens, not 14,400.
    const idle = clock.sleep(3_600_000);
    clock.advance();
    await idle;
    const start = clock.now();
    const times: number[] = [];
    const all = Promise.all(
      Array.from({ length: 6 }, () => limiter.acquire().then(() => times.push(clock.now()))),
    );
    await until(() => times.length === 4 && clock.pending() === 1);
    clock.advance();
    await until(() => times.length === 5 && clock.pending() === 1);
    clock.advance();
    await all;
    expect(times.map((t) => t - start)).toEqual([0, 0, 0, 0, 250, 500]);
  });

  it('below one per second the burst is one', async () => {
    const clock = manualClock();
    const limiter = createRateLimiter(0.5, clock);
    const times = await drive(
      clock,
      Promise.all(Array.from({ length: 3 }, () => limiter.acquire().then(() => clock.now()))),
    );
    expect(times).toEqual([0, 2000, 4000]);
  });

  it('refuses a rate that is not a positive finite number', () => {
    for (const rate of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => createRateLimiter(rate)).toThrow(RangeError);
    }
  });

  it('an uncontended acquire does not wait', async () => {
    let slept = false;
    const limiter = createRateLimiter(5, {
      sleep: () => {
        slept = true;
        return Promise.resolve();
      },
    });
    await limiter.acquire();
    expect(slept).toBe(false);
  });
});

describe('one limiter shared by three clients', () => {
  let gateway: FakeGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it('the gateway never sees more than the token bucket allows, per clock second', async () => {
    const rate = 5;
    const calls = 15;
    const clock = manualClock();
    gateway = await startFakeGateway((request) => {
      const id = Number(request.url.split('/').pop());
      return { status: 200, body: transactionWire({ id }) };
    }, clock.now);
    const shared = createRateLimiter(rate, clock);
    let granted = 0;
    const counting: RateLimiter = {
      acquire: () => shared.acquire().then(() => void (granted += 1)),
    };
    const clients = [1, 2, 3].map(() =>
      clientFor(gateway!, { rateLimiter: counting, sleep: clock.sleep }),
    );

    let finished = false;
    const all = Promise.all(
      Array.from({ length: calls }, (_, i) => clients[i % 3]!.getTransaction(i + 1)),
    ).finally(() => {
      finished = true;
    });
    // Time moves only once every granted request has reached the server, so each request is
    // counted in the clock second in which it was let through.
    while (!finished) {
      await until(() => finished || (gateway!.requests.length === granted && clock.pending() > 0));
      if (!finished) clock.advance();
    }
    await all;

    const arrivals = gateway.requests.map((request) => request.at);
    expect(arrivals).toHaveLength(calls);
    const perSecond = new Map<number, number>();
    for (const at of arrivals) {
      const second = Math.floor(at / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    // Second 0: the burst of 5 at t=0, then one every 200 ms (200..800); then 5 a second.
    expect([...perSecond.entries()]).toEqual([
      [0, 9],
      [1, 5],
      [2, 1],
    ]);
    // The token bucket bound: in any window of W ms, at most burst + rate × W / 1000.
    for (const start of arrivals) {
      for (const width of [200, 1000, 2000]) {
        const inWindow = arrivals.filter((at) => at >= start && at < start + width).length;
        expect(inWindow).toBeLessThanOrEqual(rate + (rate * width) / 1000);
      }
    }
    // After the burst, consecutive requests are at least 1/R apart.
    const sorted = [...arrivals].sort((a, b) => a - b);
    for (let i = rate; i < sorted.length; i += 1) {
      expect(sorted[i]! - sorted[i - 1]!).toBeGreaterThanOrEqual(1000 / rate);
    }
  });
});

describe('withinShare', () => {
  it('takes a token of the share, then one of the whole budget, for each call', async () => {
    const taken: string[] = [];
    const limiter = (name: string): RateLimiter => ({
      acquire: async () => {
        taken.push(name);
      },
    });
    const shared = withinShare(limiter('share'), limiter('whole'));
    await shared.acquire();
    await shared.acquire();
    expect(taken).toEqual(['share', 'whole', 'share', 'whole']);
  });

  it('a call waits for its share even while the whole budget has room', async () => {
    const clock = manualClock();
    const share = createRateLimiter(1, { now: clock.now, sleep: clock.sleep });
    const whole = createRateLimiter(100, { now: clock.now, sleep: clock.sleep });
    const limited = withinShare(share, whole);
    let granted = 0;
    for (let i = 0; i < 3; i += 1) void limited.acquire().then(() => (granted += 1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(granted).toBe(1);
    // The whole budget is not spent by the calls the share holds back.
    await whole.acquire();
    clock.advance();
    await new Promise((resolve) => setImmediate(resolve));
    expect(granted).toBe(2);
  });
});
