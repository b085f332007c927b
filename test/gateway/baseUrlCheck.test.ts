import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayClient, GatewayError } from '../../src/gateway/index.js';
import { createNotOursGate } from '../../src/gateway/notOursGate.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

// A wrong base path answers every read with NestJS's 404, which is shape B: without the check
// it would pass for "the record is not ours" (docs/reconciliation.md, "The gateway's base URL").
let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

function client(baseUrl: string, gate: ReturnType<typeof createNotOursGate> | null = null) {
  return createGatewayClient({
    baseUrl,
    publicKey: sandbox.publicKey,
    privateKey: sandbox.privateKey,
    rateLimiter: { acquire: () => Promise.resolve() },
    sleep: () => Promise.resolve(),
    timeoutMs: 1000,
    notOursGate: gate,
  });
}

async function failure(call: Promise<unknown>): Promise<GatewayError> {
  const error = await call.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe('the base URL check', () => {
  it('passes on the gateway base URL (the read answers 400 to an id that is not a number)', async () => {
    expect(await client(sandbox.url).checkBaseUrl()).toEqual({ kind: 'ok' });
  });

  it('says wrong on a base path the gateway does not have (404)', async () => {
    const verdict = await client(`${sandbox.url}/v1`).checkBaseUrl();
    expect(verdict).toMatchObject({ kind: 'wrong', status: 404 });
    expect(verdict.kind === 'wrong' && verdict.detail).toMatch(
      /Cannot GET \/v1\/api\/transactions/,
    );
  });

  it('leaves it unchecked when the gateway does not answer', async () => {
    expect(await client('http://127.0.0.1:1').checkBaseUrl()).toMatchObject({
      kind: 'unchecked',
    });
  });
});

describe('the not-ours gate in the client', () => {
  it('reads a 404 shape B as "cannot tell now" until the base URL check passed', async () => {
    const gate = createNotOursGate({ limit: 100, windowMs: 60_000, pauseMs: 60_000 });
    const wrong = await failure(client(`${sandbox.url}/v1`, gate).getTransaction(424242));
    expect(wrong.shape).toBe('B');
    expect([wrong.isNotOurs, wrong.isIndeterminate]).toEqual([false, true]);

    gate.setBaseUrl('ok');
    const missing = await failure(client(sandbox.url, gate).getTransaction(424242));
    expect([missing.isNotOurs, missing.isIndeterminate]).toEqual([true, false]);
  });

  it('pauses the classification after a run of "not ours" answers', async () => {
    const gate = createNotOursGate({ limit: 3, windowMs: 60_000, pauseMs: 60_000 });
    gate.setBaseUrl('ok');
    const reads = client(sandbox.url, gate);
    const verdicts: boolean[] = [];
    for (let id = 900_001; id <= 900_004; id += 1) {
      verdicts.push((await failure(reads.getTransaction(id))).isNotOurs);
    }
    expect(verdicts).toEqual([true, true, false, false]);
  });
});
