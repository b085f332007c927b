import { Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestQueuePrefix, type TestQueuePrefix } from '../support/services.js';

// patches/ioredis+5.11.1.patch: a pipeline's length is a getter on the class, not an accessor
// defined on each pipeline, whose AccessorPair V8 allocates in the old generation and which kept
// every pipeline (BullMQ's addBulk is one) alive across young collections (bench/PERFORMANCE.md,
// session 18). The length must read as before, for a pipeline and for a MULTI. And a client's
// custom commands (BullMQ's scripts) reach its pipelines through a class made per client and
// command set, not copied onto each pipeline (session 19): a pipeline must still run the
// client's current commands, those defined after an earlier pipeline included. And commands sent
// together, outside a pipeline, leave in one socket write (session 21).
describe('ioredis pipelines', () => {
  let redis: TestQueuePrefix;
  let client: Redis;

  beforeAll(() => {
    redis = createTestQueuePrefix();
    client = new Redis(redis.redisUrl, { maxRetriesPerRequest: 3 });
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.drop();
  });

  it('count their commands through the class getter, and run them', async () => {
    const key = `${redis.prefix}:pipeline`;
    const pipeline = client.pipeline().set(key, '1').incr(key).get(key);
    expect(Object.hasOwn(pipeline, 'length')).toBe(false);
    expect(pipeline.length).toBe(3);
    expect(await pipeline.exec()).toEqual([
      [null, 'OK'],
      [null, 2],
      [null, '2'],
    ]);

    const multi = client.multi().incr(key).get(key);
    expect(Object.hasOwn(multi, 'length')).toBe(false);
    expect(multi.length).toBe(3); // MULTI itself is queued first
    expect(await multi.exec()).toEqual([
      [null, 3],
      [null, '3'],
    ]);
  });

  it('run the custom commands the client has when each pipeline is made', async () => {
    const key = `${redis.prefix}:scripts`;
    const scripted = new Redis(redis.redisUrl, { maxRetriesPerRequest: 3 }) as Redis &
      Record<string, (...args: string[]) => unknown>;
    try {
      scripted.defineCommand('answer', { numberOfKeys: 1, lua: 'return "first"' });
      const first = scripted.pipeline() as unknown as Record<string, (...args: string[]) => void>;
      expect(Object.hasOwn(first, 'answer')).toBe(false);
      expect(Object.hasOwn(first, 'answerBuffer')).toBe(false);
      first.answer?.(key);
      first.answerBuffer?.(key);
      expect(await (first as unknown as ReturnType<Redis['pipeline']>).exec()).toEqual([
        [null, 'first'],
        [null, Buffer.from('first')],
      ]);

      scripted.defineCommand('answer', { numberOfKeys: 1, lua: 'return "second"' });
      scripted.defineCommand('echoKey', { numberOfKeys: 1, lua: 'return KEYS[1]' });
      const second = scripted.multi() as unknown as Record<string, (...args: string[]) => void>;
      second.answer?.(key);
      second.echoKey?.(key);
      expect(await (second as unknown as ReturnType<Redis['multi']>).exec()).toEqual([
        [null, 'second'],
        [null, key],
      ]);
      // Pipelines made while the commands stay the same share one class.
      expect(Object.getPrototypeOf(scripted.pipeline())).toBe(Object.getPrototypeOf(second));
    } finally {
      scripted.disconnect();
    }
  });

  it('send the commands of one turn in one socket write, each with its own answer', async () => {
    const key = `${redis.prefix}:corked`;
    await client.ping();
    const writes = [vi.spyOn(Socket.prototype, '_write'), vi.spyOn(Socket.prototype, '_writev')];
    let answers: unknown[];
    try {
      // As BullMQ's jobs finish at once: one command each, in promise reactions of one turn.
      answers = await Promise.all(
        Array.from({ length: 20 }, () => Promise.resolve().then(() => client.incr(key))),
      );
      expect(writes.reduce((sum, write) => sum + write.mock.calls.length, 0)).toBe(1);
    } finally {
      writes.forEach((write) => write.mockRestore());
    }
    expect(answers).toEqual(Array.from({ length: 20 }, (_, n) => n + 1));
    // A command sent on its own still leaves at once, without waiting for another.
    expect(await client.get(key)).toBe('20');
  });
});
