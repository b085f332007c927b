import { appendFileSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SpoolFullError, createSpool, type SpooledDelivery } from '../../src/inbox/spool.js';

const delivery = (n: number): SpooledDelivery => ({
  channel: 'postback',
  rawBody: Buffer.from(JSON.stringify({ id: n, name: 'Conceição ✓' })),
  headers: { 'content-type': 'application/json' },
  sourceAddress: '127.0.0.1',
  receivedAt: new Date(0).toISOString(),
});

describe('spool', () => {
  it('keeps its directory and files readable by their owner only (they hold customer data)', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'spool-unit-')), 'spool');
    const spool = await createSpool(dir, 1 << 20);
    await spool.append(delivery(1));
    await spool.close();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const file of readdirSync(dir)) {
      expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
    }
    expect(readdirSync(dir)).not.toEqual([]);
  });

  it('gives deliveries back byte for byte, in the order they were appended, across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-unit-'));
    const first = await createSpool(dir, 1 << 20);
    for (const n of [1, 2, 3]) await first.append(delivery(n));
    await first.close();

    const second = await createSpool(dir, 1 << 20);
    expect(await second.pending()).toBe(3);
    await second.append(delivery(4));
    const seen: SpooledDelivery[] = [];
    expect(await second.drain(async (d) => void seen.push(d))).toBe(4);
    expect(seen.map((d) => JSON.parse(d.rawBody.toString()).id)).toEqual([1, 2, 3, 4]);
    expect(seen[0]?.rawBody.equals(delivery(1).rawBody)).toBe(true);
    expect(await second.pending()).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('keeps what it could not store, and replays it whole next time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-unit-'));
    const spool = await createSpool(dir, 1 << 20);
    for (const n of [1, 2, 3]) await spool.append(delivery(n));
    let calls = 0;
    await expect(
      spool.drain(async () => {
        calls += 1;
        if (calls === 2) throw new Error('Postgres went away again');
      }),
    ).rejects.toThrow('went away');
    const seen: number[] = [];
    await spool.drain(async (d) => void seen.push(JSON.parse(d.rawBody.toString()).id));
    expect(seen).toEqual([1, 2, 3]);
  });

  it('skips a torn last line (a crash mid-append was never acknowledged)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-unit-'));
    const spool = await createSpool(dir, 1 << 20);
    await spool.append(delivery(1));
    appendFileSync(join(dir, 'open.jsonl'), '{"channel":"postb');
    const seen: number[] = [];
    await spool.drain(async (d) => void seen.push(JSON.parse(d.rawBody.toString()).id));
    expect(seen).toEqual([1]);
  });

  it('refuses an append past its size limit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-unit-'));
    const spool = await createSpool(dir, 300);
    await spool.append(delivery(1));
    await expect(spool.append(delivery(2))).rejects.toBeInstanceOf(SpoolFullError);
  });
});
