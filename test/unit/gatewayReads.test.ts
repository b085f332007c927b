import { describe, expect, it } from 'vitest';
import type { GatewayClient, GatewayTransaction } from '../../src/gateway/types.js';
import { createRecentReads, readRecords } from '../../src/worker/gatewayReads.js';

/** A gateway that counts its GETs and answers each when told to. */
function countingGateway() {
  const calls: number[] = [];
  const waiting: (() => void)[] = [];
  const gateway = {
    getTransaction(id: number) {
      calls.push(id);
      return new Promise<GatewayTransaction>((resolve) => {
        waiting.push(() => resolve({ id, status: 'PAGO' } as GatewayTransaction));
      });
    },
  } as unknown as GatewayClient;
  const answerAll = () => waiting.splice(0).forEach((answer) => answer());
  return { gateway, calls, answerAll };
}

const at = (ms: number) => new Date(Date.UTC(2026, 10, 20, 12, 0, 0, ms));
/** One clock for both: the database's time before the reads, and the host's for their age. */
const clockOf = (now: () => Date) => ({ readAt: now(), now });

describe('readRecords', () => {
  it('one GET per record however many rows wait on it', async () => {
    const { gateway, calls, answerAll } = countingGateway();
    const request = { resource: 'sale' as const, id: 7, notBefore: at(0) };
    const reads = readRecords(
      gateway,
      [request, request, { ...request, id: 8 }],
      clockOf(() => at(10)),
    );
    answerAll();
    expect((await reads).reads.size).toBe(2);
    expect(calls).toEqual([7, 8]);
  });

  it('a read in flight or just answered serves the rows received before it began, not after', async () => {
    const { gateway, calls, answerAll } = countingGateway();
    const recent = createRecentReads(2000);
    let clock = 100;
    const now = () => at(clock);
    const first = readRecords(
      gateway,
      [{ resource: 'sale', id: 7, notBefore: at(50) }],
      clockOf(now),
      recent,
    );
    // Another batch, rows received before the first read began: shares its GET (in flight).
    const second = readRecords(
      gateway,
      [{ resource: 'sale', id: 7, notBefore: at(90) }],
      clockOf(now),
      recent,
    );
    answerAll();
    await Promise.all([first, second]);
    expect(calls).toEqual([7]);
    // A row received after that read began cannot be judged by it: a new GET.
    clock = 300;
    const third = readRecords(
      gateway,
      [{ resource: 'sale', id: 7, notBefore: at(200) }],
      clockOf(now),
      recent,
    );
    answerAll();
    await third;
    expect(calls).toEqual([7, 7]);
    // Past the window the read is forgotten.
    clock = 5000;
    const fourth = readRecords(
      gateway,
      [{ resource: 'sale', id: 7, notBefore: at(0) }],
      clockOf(now),
      recent,
    );
    answerAll();
    const answer = await fourth;
    expect(calls).toEqual([7, 7, 7]);
    expect(answer.reads.get('sale:7')).toMatchObject({
      kind: 'record',
      read: { readAt: at(5000) },
    });
  });

  it('a webhook may join a read in flight begun before it: the read is marked joined', async () => {
    const { gateway, calls, answerAll } = countingGateway();
    const recent = createRecentReads(2000);
    let clock = 100;
    const now = () => at(clock);
    const first = readRecords(
      gateway,
      [{ resource: 'sale', id: 9, notBefore: at(50) }],
      clockOf(now),
      recent,
    );
    clock = 400;
    // Received after the first read began, and willing to take an earlier read: no new GET.
    const late = readRecords(
      gateway,
      [{ resource: 'sale', id: 9, notBefore: at(300), acceptEarlier: true }],
      clockOf(now),
      recent,
    );
    answerAll();
    const [own, joined] = await Promise.all([first, late]);
    expect(calls).toEqual([9]);
    expect([...own.joined, ...own.reused]).toEqual([]);
    expect([...joined.joined]).toEqual(['sale:9']);
    expect([...joined.reused]).toEqual(['sale:9']);
    // Two rows of one record: the read is taken early only if both accept it.
    const mixed = readRecords(
      gateway,
      [
        { resource: 'sale', id: 9, notBefore: at(350), acceptEarlier: true },
        { resource: 'sale', id: 9, notBefore: at(360) },
      ],
      clockOf(now),
      recent,
    );
    answerAll();
    expect((await mixed).joined.size).toBe(0);
    expect(calls).toEqual([9, 9]);
  });

  it('shares a read in flight however long it waits on the budget; once answered, for the ttl', async () => {
    const { gateway, calls, answerAll } = countingGateway();
    const recent = createRecentReads(2000);
    let clock = 0;
    const now = () => at(clock);
    const ask = (notBefore: number) =>
      readRecords(
        gateway,
        [{ resource: 'sale', id: 5, notBefore: at(notBefore) }],
        clockOf(now),
        recent,
      );
    const first = ask(0);
    clock = 10_000; // still in flight ten seconds later
    const second = ask(0);
    answerAll();
    await Promise.all([first, second]);
    expect(calls).toEqual([5]);
    clock = 11_500; // answered at 10 000: within the ttl
    await ask(0);
    expect(calls).toEqual([5]);
    clock = 12_500;
    const third = ask(0);
    answerAll();
    await third;
    expect(calls).toEqual([5, 5]);
  });
});
