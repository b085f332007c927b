import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postbackBody } from '../support/fixtures.js';
import { inboxRowFinished } from '../support/paymirror.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { useTestApp, type TestApp } from '../support/testApp.js';

// A captured signed PAGO and a captured signed MED, replayed one after the other: each moves
// the sale back into a status its history already holds, and each is a new event to the
// dedupe (a cycle status takes its key over once the sale has moved on).

let gateway: TestSandbox;
beforeAll(async () => {
  gateway = await startTestSandbox();
});
afterAll(async () => {
  await gateway?.close();
});

const keyed = useTestApp({ env: () => ({ ...gateway.env, RECONCILE_INTERVAL_SECONDS: '3600' }) });
const keyless = useTestApp();

async function deliver(t: TestApp, body: Record<string, unknown>) {
  const answer = await t.app.postback(body);
  expect(answer.body.status).toBe('accepted');
  return inboxRowFinished(t.sql(), answer.body.id as number);
}

async function saleStatus(t: TestApp, id: number): Promise<string | undefined> {
  const [row] = await t.sql()<{ status: string }[]>`select status from sales where id = ${id}`;
  return row?.status;
}

async function replaysCounted(t: TestApp): Promise<number> {
  const text = await (await fetch(`${t.app.metricsUrl}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('paymirror_cycle_replays_unconfirmed_total'));
  return Number(line?.split(' ')[1] ?? NaN);
}

describe('a replayed cycle postback, with gateway keys', () => {
  it('does not flip the sale back while the gateway says otherwise; a real MED won is applied', async () => {
    const id = await gateway.createSale({ amount: 3000 });
    const paid = postbackBody({ id, status: 'PAGO', amount: '3000' });
    const med = postbackBody({ id, status: 'MED', amount: '3000' });
    await gateway.control(`/sales/${id}/status`, { status: 'PAGO' });
    await deliver(keyed, paid);
    await gateway.control(`/sales/${id}/status`, { status: 'MED' });
    await deliver(keyed, med);
    expect(await saleStatus(keyed, id)).toBe('MED');

    // The captured PAGO again: the gateway still says MED.
    expect((await deliver(keyed, paid)).outcome).not.toBe('applied');
    expect(await saleStatus(keyed, id)).toBe('MED');

    // The mediation is won: the gateway says PAGO, and the same PAGO body is applied.
    await gateway.control(`/sales/${id}/status`, { status: 'PAGO' });
    expect(await deliver(keyed, paid)).toEqual({ state: 'processed', outcome: 'applied' });
    expect(await saleStatus(keyed, id)).toBe('PAGO');

    // The captured MED again: the gateway says PAGO.
    expect((await deliver(keyed, med)).outcome).not.toBe('applied');
    expect(await saleStatus(keyed, id)).toBe('PAGO');
    const path = await keyed.sql()<{ to_status: string }[]>`
      select to_status from status_history
       where resource_type = 'sale' and resource_id = ${id} order by id`;
    expect(path.map((row) => row.to_status)).toEqual(['PAGO', 'MED', 'PAGO']);
    expect(await replaysCounted(keyed)).toBe(0);
  });
});

describe('a replayed cycle postback, without gateway keys', () => {
  it('is applied, marked for reconciliation and counted in paymirror_cycle_replays_unconfirmed_total', async () => {
    const id = 7301;
    const paid = postbackBody({ id, status: 'PAGO', amount: '3000' });
    const med = postbackBody({ id, status: 'MED', amount: '3000' });
    await deliver(keyless, paid);
    await deliver(keyless, med);
    // The first MED is a move the history has not seen: not a replay.
    expect(await replaysCounted(keyless)).toBe(0);

    expect(await deliver(keyless, paid)).toEqual({ state: 'processed', outcome: 'applied' });
    expect(await saleStatus(keyless, id)).toBe('PAGO');
    expect(await replaysCounted(keyless)).toBe(1);

    expect(await deliver(keyless, med)).toEqual({ state: 'processed', outcome: 'applied' });
    expect(await saleStatus(keyless, id)).toBe('MED');
    expect(await replaysCounted(keyless)).toBe(2);
    const [row] = await keyless.sql()<{ marked: boolean }[]>`
      select reconcile_requested_at is not null as marked from sales where id = ${id}`;
    expect(row?.marked).toBe(true);
  });
});
