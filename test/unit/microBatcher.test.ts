import { describe, expect, it } from 'vitest';
import { createMicroBatcher, type Pending } from '../../src/lib/microBatcher.js';

/** A batcher whose batches settle only when the test says so. */
function controlled(options: {
  maxBatch: number;
  maxWaitMs: number;
  maxInFlight?: number;
  overlapFrom?: number;
}) {
  const batches: number[][] = [];
  const release: (() => void)[] = [];
  const batcher = createMicroBatcher<number, number>(
    (batch: Pending<number, number>[]) => {
      batches.push(batch.map((pending) => pending.item));
      return new Promise<void>((resolve) => {
        release.push(() => {
          batch.forEach((pending) => pending.resolve(pending.item * 10));
          resolve();
        });
      });
    },
    options,
    () => new Error('closed'),
  );
  return { batcher, batches, release };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('createMicroBatcher', () => {
  it('with no wait, batches what arrives in one turn of the event loop', async () => {
    const { batcher, batches, release } = controlled({ maxBatch: 10, maxWaitMs: 0 });
    const answers = [1, 2, 3].map((item) => batcher.add(item));
    await turn();
    expect(batches).toEqual([[1, 2, 3]]);
    release.forEach((settle) => settle());
    expect(await Promise.all(answers)).toEqual([10, 20, 30]);
  });

  it('holds items while maxInFlight batches run, then sends them together', async () => {
    const { batcher, batches, release } = controlled({
      maxBatch: 10,
      maxWaitMs: 0,
      maxInFlight: 1,
    });
    const first = batcher.add(1);
    await turn();
    const later = [2, 3, 4].map((item) => batcher.add(item));
    await turn();
    expect(batches).toEqual([[1]]);
    release[0]!();
    expect(await first).toBe(10);
    await turn();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    release[1]!();
    expect(await Promise.all(later)).toEqual([20, 30, 40]);
  });

  it('starts a batch beside one in flight only once overlapFrom items wait', async () => {
    const { batcher, batches, release } = controlled({
      maxBatch: 10,
      maxWaitMs: 0,
      maxInFlight: 2,
      overlapFrom: 3,
    });
    const first = batcher.add(1);
    await turn();
    const second = [2, 3].map((item) => batcher.add(item));
    await turn();
    expect(batches).toEqual([[1]]);
    const third = batcher.add(4);
    await turn();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    // With a batch still in flight, a lone item waits for it rather than start beside it.
    release[0]!();
    expect(await first).toBe(10);
    const fourth = batcher.add(5);
    await turn();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    release[1]!();
    expect(await Promise.all([...second, third])).toEqual([20, 30, 40]);
    await turn();
    expect(batches).toEqual([[1], [2, 3, 4], [5]]);
    release[2]!();
    expect(await fourth).toBe(50);
  });

  it('starts a full batch beside one in flight whatever overlapFrom says', async () => {
    const { batcher, batches, release } = controlled({
      maxBatch: 2,
      maxWaitMs: 0,
      maxInFlight: 2,
      overlapFrom: 32,
    });
    const answers = [1, 2, 3, 4].map((item) => batcher.add(item));
    await turn();
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    release.forEach((settle) => settle());
    expect(await Promise.all(answers)).toEqual([10, 20, 30, 40]);
  });

  it('splits at maxBatch and close() waits for every batch, refusing new items', async () => {
    const { batcher, batches, release } = controlled({
      maxBatch: 2,
      maxWaitMs: 60_000,
      maxInFlight: 1,
    });
    const answers = [1, 2, 3, 4, 5].map((item) => batcher.add(item));
    const closed = batcher.close();
    await expect(batcher.add(6)).rejects.toThrow('closed');
    while (batches.length < 3) {
      release[batches.length - 1]!();
      await turn();
    }
    release[2]!();
    await closed;
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
    expect(await Promise.all(answers)).toEqual([10, 20, 30, 40, 50]);
  });
});
