import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSpoolMac } from '../../src/inbox/spoolMac.js';

import { describe, expect, it } from 'vitest';
import type { Delivery } from '../../src/inbox/delivery.js';
import { createSpool, type SpooledDelivery } from '../../src/inbox/spool.js';
import type { StoreResult } from '../../src/inbox/storeDelivery.js';
import { drainSpool } from '../../src/ingress/spoolDrainer.js';
import { createLogger } from '../../src/log/logger.js';

const mac = createSpoolMac('spool-test-secret-0123', []);

const line = (channel: 'postback' | 'webhook', body: Record<string, unknown>): SpooledDelivery => ({
  channel,
  rawBody: Buffer.from(JSON.stringify(body)),
  headers: { 'content-type': 'application/json' },
  sourceAddress: '127.0.0.1',
  receivedAt: new Date(0).toISOString(),
});

describe('spool replay', () => {
  it("moves only the seller's own deliveries into the inbox", async () => {
    const spool = await createSpool(mkdtempSync(join(tmpdir(), 'spool-seller-')), {
      maxBytes: 1 << 20,
      mac,
    });
    await spool.append(line('postback', { id: 1, userId: 4242, status: 'PAGO' }));
    await spool.append(line('postback', { id: 2, userId: 777, status: 'PAGO' }));
    await spool.append(line('postback', { id: 3, status: 'PAGO' }));
    await spool.append(line('webhook', { id: 4, userId: 777, type: 'TRANSACTION' }));
    const stored: number[] = [];
    const store = (delivery: Delivery): Promise<StoreResult> => {
      stored.push(delivery.payload.id as number);
      return Promise.resolve({ kind: 'duplicate', id: stored.length });
    };
    await drainSpool(
      spool,
      store,
      () => Promise.resolve(),
      createLogger({ level: 'silent' }),
      4242,
    );
    expect(stored).toEqual([1]);
    expect(await spool.pending()).toBe(0);
    await spool.close();
  });
});
