import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isStorageOutage } from '../../src/inbox/outage.js';
import { TimeoutError, withTimeout } from '../../src/lib/withTimeout.js';

describe('withTimeout', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('rejects with a TimeoutError that says how long it waited', async () => {
    const raced = withTimeout(new Promise<never>(() => undefined), 250);
    const settled = raced.then(
      () => null,
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(250);
    const error = await settled;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ name: 'TimeoutError', ms: 250 });
    expect((error as Error).message).toBe('no answer within 250 ms');
  });

  it('answers with the promise when it settles in time, and leaves no timer behind', async () => {
    await expect(withTimeout(Promise.resolve('PONG'), 250)).resolves.toBe('PONG');
    await expect(withTimeout(Promise.reject(new Error('refused')), 250)).rejects.toThrow('refused');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('counts as a storage outage, so a store that hangs is spooled', () => {
    expect(isStorageOutage(new TimeoutError(5000))).toBe(true);
  });
});
