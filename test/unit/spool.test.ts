import {
  appendFileSync,
  chmodSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSpoolMac } from '../../src/inbox/spoolMac.js';

import { describe, expect, it } from 'vitest';
import {
  SpoolFullError,
  SpoolPermissionError,
  createSpool,
  type SpooledDelivery,
} from '../../src/inbox/spool.js';

const mac = createSpoolMac('spool-test-secret-0123', []);

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
    const spool = await createSpool(dir, { maxBytes: 1 << 20, mac });
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
    const first = await createSpool(dir, { maxBytes: 1 << 20, mac });
    for (const n of [1, 2, 3]) await first.append(delivery(n));
    await first.close();

    const second = await createSpool(dir, { maxBytes: 1 << 20, mac });
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
    const spool = await createSpool(dir, { maxBytes: 1 << 20, mac });
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
    const spool = await createSpool(dir, { maxBytes: 1 << 20, mac });
    await spool.append(delivery(1));
    appendFileSync(join(dir, 'open.jsonl'), '{"channel":"postb');
    const seen: number[] = [];
    await spool.drain(async (d) => void seen.push(JSON.parse(d.rawBody.toString()).id));
    expect(seen).toEqual([1]);
  });

  it('refuses an append past its size limit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-unit-'));
    const spool = await createSpool(dir, { maxBytes: 300, mac });
    await spool.append(delivery(1));
    await expect(spool.append(delivery(2))).rejects.toBeInstanceOf(SpoolFullError);
  });

  it('refuses a directory group or others can write to', async () => {
    for (const mode of [0o770, 0o707, 0o777]) {
      const dir = mkdtempSync(join(tmpdir(), 'spool-unit-'));
      chmodSync(dir, mode);
      await expect(createSpool(dir, { maxBytes: 1 << 20, mac })).rejects.toBeInstanceOf(
        SpoolPermissionError,
      );
    }
    const readable = mkdtempSync(join(tmpdir(), 'spool-unit-'));
    chmodSync(readable, 0o755);
    await (await createSpool(readable, { maxBytes: 1 << 20, mac })).close();
  });

  it('never replays a line it did not write: a planted or altered line is set aside', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-unit-'));
    const aside: { lines: number; file: string }[] = [];
    const spool = await createSpool(dir, {
      maxBytes: 1 << 20,
      mac,
      onUnverified: (lines, file) => aside.push({ lines, file }),
    });
    await spool.append(delivery(1));
    const open = join(dir, 'open.jsonl');
    const [genuine = ''] = readFileSync(open, 'utf8').split('\n');
    const [json = '', signature = ''] = genuine.split('\t');
    const planted = JSON.stringify({
      ...JSON.parse(json),
      rawBody: Buffer.from('{"id":2}').toString('base64'),
    });
    appendFileSync(open, `${planted}\n`); // no HMAC
    appendFileSync(open, `${planted}\t${signature}\n`); // another line's HMAC
    const otherKey = createSpoolMac('someone-elses-secret-0123', []);
    appendFileSync(open, `${planted}\t${otherKey.sign(planted)}\n`);
    await spool.append(delivery(3));

    const seen: number[] = [];
    expect(
      await spool.drain(async (d) => void seen.push(JSON.parse(d.rawBody.toString()).id)),
    ).toBe(2);
    expect(seen).toEqual([1, 3]);
    expect(aside).toHaveLength(1);
    expect(aside[0]?.lines).toBe(3);
    expect(
      readFileSync(aside[0]?.file ?? '', 'utf8')
        .split('\n')
        .filter(Boolean),
    ).toHaveLength(3);
  });

  it('replays lines signed before a rotation while the old secret is still configured', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-unit-'));
    const before = await createSpool(dir, {
      maxBytes: 1 << 20,
      mac: createSpoolMac('old-secret-0123456789', []),
    });
    await before.append(delivery(1));
    await before.close();
    const after = await createSpool(dir, {
      maxBytes: 1 << 20,
      mac: createSpoolMac('new-secret-0123456789', [
        'new-secret-0123456789',
        'old-secret-0123456789',
      ]),
    });
    const seen: number[] = [];
    await after.drain(async (d) => void seen.push(JSON.parse(d.rawBody.toString()).id));
    expect(seen).toEqual([1]);
  });
});
