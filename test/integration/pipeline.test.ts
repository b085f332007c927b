import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { NOTIFICATIONS_QUEUE } from '../../src/queue/catalog.js';
import { postbackBody, sign, webhookSaleBody, withdrawalBody } from '../support/fixtures.js';
import { inboxRowFinished, startTestPaymirror, waitFor } from '../support/paymirror.js';
import { useTestApp } from '../support/testApp.js';
import { createTestQueuePrefix } from '../support/services.js';
import { startRedisTopology } from '../support/redisTopology.js';

// The whole path: HTTP → inbox → queue → worker → mirror, on the real services.
const t = useTestApp();

const sql = () => t.db.database.sql;

const processed = (inboxId: number) => inboxRowFinished(sql(), inboxId);

async function saleStatus(id: number): Promise<string | undefined> {
  const rows = await sql()<{ status: string }[]>`select status from sales where id = ${id}`;
  return rows[0]?.status;
}

async function history(type: string, id: number) {
  return sql()<{ from_status: string | null; to_status: string; source: string }[]>`
    select from_status, to_status, source from status_history
     where resource_type = ${type} and resource_id = ${id} order by id`;
}

describe('dedupe', () => {
  it('20 identical concurrent postbacks: one accepted, 19 duplicates, one job, one history row', async () => {
    const raw = JSON.stringify(postbackBody({ id: 5001, status: 'PAGO' }));
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => t.app.postback(null, { raw })),
    );
    const accepted = answers.filter((a) => a.body.status === 'accepted');
    const duplicates = answers.filter((a) => a.body.status === 'duplicate');
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(accepted).toHaveLength(1);
    expect(duplicates).toHaveLength(19);
    const id = accepted[0]?.body.id as number;
    expect(new Set(duplicates.map((d) => d.body.id))).toEqual(new Set([id]));
    await processed(id);
    expect(await history('sale', 5001)).toEqual([
      { from_status: null, to_status: 'PAGO', source: 'postback' },
    ]);
    const inbox = await sql()`select delivery_count from inbox_events where resource_id = 5001`;
    expect(inbox).toEqual([{ delivery_count: 20 }]);
  });

  it('the same event on the other channel is processed: a status no-op; its fee is not written', async () => {
    const post = await t.app.postback(postbackBody({ id: 5002, status: 'PAGO' }));
    await processed(post.body.id as number);
    const hook = await t.app.webhook(webhookSaleBody({ id: 5002, status: 'PAGO' }));
    expect(hook.body.status).toBe('accepted');
    expect(await processed(hook.body.id as number)).toEqual({
      state: 'processed',
      outcome: 'noop',
    });
    const rows = await sql()`select fee_cents, external_transaction_id from sales where id = 5002`;
    expect(rows[0]).toEqual({ fee_cents: null, external_transaction_id: 'ext-5002' });
    expect(await history('sale', 5002)).toHaveLength(1);
  });

  it('after the dedupe window, the same key is a new delivery again', async () => {
    const body = postbackBody({ id: 5003, status: 'PAGO' });
    const first = await t.app.postback(body);
    // The first is applied before the second arrives: the second then finds PAGO already.
    await processed(first.body.id as number);
    await sql()`update inbox_dedupe_keys set first_received_at = now() - interval '25 hours'
                 where event_key = 'sale:5003:PAGO'`;
    const again = await t.app.postback(body);
    expect(again.body.status).toBe('accepted');
    expect(again.body.id).not.toBe(first.body.id);
    expect(await processed(again.body.id as number)).toEqual({
      state: 'processed',
      outcome: 'noop',
    });
  });
});

describe('ordering', () => {
  it('ESTORNADO then PAGO stays ESTORNADO', async () => {
    const refund = await t.app.postback(postbackBody({ id: 5101, status: 'ESTORNADO' }));
    await processed(refund.body.id as number);
    const late = await t.app.postback(postbackBody({ id: 5101, status: 'PAGO' }));
    // Signed, so an authentic observation: kept in history as observed, never as the current state.
    expect(await processed(late.body.id as number)).toEqual({
      state: 'processed',
      outcome: 'observed',
    });
    expect(await saleStatus(5101)).toBe('ESTORNADO');
    const path = await sql()`
      select from_status, to_status, entered from status_history
       where resource_type = 'sale' and resource_id = 5101 order by id`;
    expect(path).toEqual([
      { from_status: null, to_status: 'ESTORNADO', entered: true },
      { from_status: 'ESTORNADO', to_status: 'PAGO', entered: false },
    ]);
  });

  it('PENDENTE then ESTORNADO ends ESTORNADO, with the missed steps in one history row', async () => {
    const pending = await t.app.postback(postbackBody({ id: 5102, status: 'PENDENTE' }));
    await processed(pending.body.id as number);
    const refund = await t.app.postback(postbackBody({ id: 5102, status: 'ESTORNADO' }));
    expect(await processed(refund.body.id as number)).toEqual({
      state: 'processed',
      outcome: 'applied',
    });
    expect(await saleStatus(5102)).toBe('ESTORNADO');
    expect(await history('sale', 5102)).toEqual([
      { from_status: null, to_status: 'PENDENTE', source: 'postback' },
      { from_status: 'PENDENTE', to_status: 'ESTORNADO', source: 'postback' },
    ]);
  });

  it('a withdrawal COMPLETED then an older PROCESSING stays COMPLETED', async () => {
    const done = await t.app.webhook(
      withdrawalBody({ id: 9101, status: 'COMPLETED', updatedAt: '2026-11-20T12:00:00.000Z' }),
    );
    await processed(done.body.id as number);
    const older = await t.app.webhook(
      withdrawalBody({ id: 9101, status: 'PROCESSING', updatedAt: '2026-11-20T11:00:00.000Z' }),
    );
    expect(await processed(older.body.id as number)).toEqual({
      state: 'processed',
      outcome: 'stale',
    });
    const rows =
      await sql()`select status, amount_cents, extract(epoch from gateway_updated_at)::int as updated from withdrawals where id = 9101`;
    expect(rows[0]).toEqual({
      status: 'COMPLETED',
      amount_cents: 15050,
      updated: Date.parse('2026-11-20T12:00:00.000Z') / 1000,
    });
  });

  it('MED on a card sale ends quarantined with outcome invalid and changes nothing', async () => {
    const paid = await t.app.postback(
      postbackBody({ id: 5103, status: 'PAGO', paymentMethod: 'CREDIT_CARD' }),
    );
    await processed(paid.body.id as number);
    const med = await t.app.webhook(
      webhookSaleBody({ id: 5103, status: 'MED', paymentMethod: 'CREDIT_CARD' }),
    );
    expect(await processed(med.body.id as number)).toEqual({
      state: 'quarantined',
      outcome: 'invalid',
    });
    expect(await saleStatus(5103)).toBe('PAGO');
  });

  it('PAGO then MED (ambiguous without gateway keys) is applied and marked for reconciliation', async () => {
    const paid = await t.app.postback(postbackBody({ id: 5104, status: 'PAGO' }));
    await processed(paid.body.id as number);
    const med = await t.app.postback(postbackBody({ id: 5104, status: 'MED' }));
    expect(await processed(med.body.id as number)).toEqual({
      state: 'processed',
      outcome: 'applied',
    });
    const rows =
      await sql()`select status, reconcile_requested_at is not null as marked from sales where id = 5104`;
    expect(rows[0]).toEqual({ status: 'MED', marked: true });
  });

  it('PAGO, MED, PAGO again (mediation won) on one channel: the second PAGO is a new event, not a duplicate', async () => {
    for (const status of ['PAGO', 'MED', 'PAGO']) {
      const answer = await t.app.postback(postbackBody({ id: 5107, status }));
      expect(answer.body.status).toBe('accepted');
      await processed(answer.body.id as number);
    }
    expect(await saleStatus(5107)).toBe('PAGO');
    expect((await history('sale', 5107)).map((h) => h.to_status)).toEqual(['PAGO', 'MED', 'PAGO']);
    const again = await t.app.postback(postbackBody({ id: 5107, status: 'PAGO' }));
    expect(again.body.status).toBe('duplicate');
  });

  it('a body with non-ASCII characters is verified as sent, bytes and all', async () => {
    const raw = JSON.stringify(
      postbackBody({ id: 5105, status: 'PAGO', customerName: 'João Conceição 🧾' }),
    );
    const answer = await t.app.postback(null, {
      raw: Buffer.from(raw, 'utf8'),
      signature: sign(Buffer.from(raw, 'utf8')),
    });
    expect(answer.body.status).toBe('accepted');
    await processed(answer.body.id as number);
    const rows = await sql()`select customer_name from sales where id = 5105`;
    expect(rows[0]?.customer_name).toBe('João Conceição 🧾');
  });

  it('money lands as bigint centavos, items included', async () => {
    const answer = await t.app.postback(
      postbackBody({ id: 5106, status: 'PAGO', amount: '123456789' }),
    );
    await processed(answer.body.id as number);
    const sale =
      await sql()`select amount_cents, pg_typeof(amount_cents)::text as type from sales where id = 5106`;
    expect(sale[0]).toEqual({ amount_cents: 123456789, type: 'bigint' });
    const items =
      await sql()`select item_id, unit_price_cents, quantity, tangible from sale_items where sale_id = 5106`;
    expect(items).toEqual([
      { item_id: 1, unit_price_cents: 123456789, quantity: 1, tangible: true },
    ]);
  });
});

describe('losing Redis loses nothing', () => {
  it('a postback accepted while no worker runs, whose queue keys are then deleted, is applied once a worker and the sweeper run', async () => {
    const isolated = createTestQueuePrefix();
    const ingress = await startTestPaymirror({ db: t.db, queue: isolated, roles: 'ingress' });
    let answer;
    try {
      answer = await ingress.postback(postbackBody({ id: 5201, status: 'PAGO' }));
      expect(answer.body.status).toBe('accepted');
      const probe = new Queue(NOTIFICATIONS_QUEUE, {
        connection: { url: isolated.redisUrl },
        prefix: isolated.prefix,
      });
      // The job is added after the answer, without holding it.
      await waitFor(async () => (await probe.getJobCounts('waiting')).waiting === 1, {
        what: "the accepted postback's job",
      });
      await probe.close();
    } finally {
      await ingress.close();
    }
    expect(await isolated.deleteKeys()).toBeGreaterThan(0);
    const rest = await startTestPaymirror({
      db: t.db,
      queue: isolated,
      roles: 'worker,scheduler',
      env: { SWEEP_AFTER_SECONDS: '0' },
    });
    try {
      expect(await processed(answer.body.id as number)).toEqual({
        state: 'processed',
        outcome: 'applied',
      });
      expect(await saleStatus(5201)).toBe('PAGO');
      expect(await history('sale', 5201)).toHaveLength(1);
    } finally {
      await rest.close();
      await isolated.drop();
    }
  });
});

describe('the answer waits for the commit, not for Redis', () => {
  it('a postback is answered once its row is committed while Redis takes no writes; its job follows', async () => {
    // A Redis of its own: CLIENT PAUSE holds every client of the server.
    const redis = await startRedisTopology('single');
    const redisUrl = redis.env.REDIS_URL ?? '';
    const isolated = createTestQueuePrefix();
    const admin = new Redis(redisUrl);
    const probe = new Queue(NOTIFICATIONS_QUEUE, {
      connection: { url: redisUrl },
      prefix: isolated.prefix,
    });
    let paused = false;
    let ingress: Awaited<ReturnType<typeof startTestPaymirror>> | null = null;
    try {
      ingress = await startTestPaymirror({
        db: t.db,
        queue: isolated,
        roles: 'ingress',
        env: redis.env,
      });
      await admin.call('CLIENT', 'PAUSE', '30000', 'WRITE');
      paused = true;
      const answer = await ingress.postback(postbackBody({ id: 5202, status: 'PAGO' }));
      expect(answer.body.status).toBe('accepted');
      const [row] = await sql()<{ state: string }[]>`
        select state from inbox_events where id = ${answer.body.id as number}`;
      expect(row).toEqual({ state: 'pending' });
      // Reads still run under a WRITE pause: no job yet.
      expect(await admin.llen(`${isolated.prefix}:${NOTIFICATIONS_QUEUE}:wait`)).toBe(0);
      await admin.call('CLIENT', 'UNPAUSE');
      paused = false;
      await waitFor(async () => (await probe.getJobCounts('waiting')).waiting === 1, {
        what: "the answered postback's job",
      });
    } finally {
      if (paused) await admin.call('CLIENT', 'UNPAUSE');
      await ingress?.close();
      await probe.close();
      admin.disconnect();
      await redis.stop();
    }
  });
});

describe('failures', () => {
  it('retries with backoff, then marks the row failed with its error kept', async () => {
    await sql().unsafe(`
      create function refuse_sale_6001() returns trigger language plpgsql as $$
      begin
        if new.id = 6001 then raise exception 'disk on fire for sale 6001'; end if;
        return new;
      end $$;
      create trigger refuse_sale_6001 before insert on sales for each row execute function refuse_sale_6001();`);
    const isolated = createTestQueuePrefix();
    const other = await startTestPaymirror({
      db: t.db,
      queue: isolated,
      env: { JOB_ATTEMPTS: '3', JOB_BACKOFF_MS: '10' },
    });
    try {
      const answer = await other.postback(postbackBody({ id: 6001, status: 'PAGO' }));
      const row = await waitFor(async () => {
        const rows =
          await sql()`select state, attempts, last_error from inbox_events where id = ${answer.body.id as number}`;
        return rows[0]?.state === 'failed' ? rows[0] : undefined;
      });
      expect(row).toMatchObject({ state: 'failed', attempts: 3 });
      expect(row.last_error).toContain('disk on fire for sale 6001');
      expect(await saleStatus(6001)).toBeUndefined();
    } finally {
      await other.close();
      await isolated.drop();
      await sql().unsafe(
        'drop trigger refuse_sale_6001 on sales; drop function refuse_sale_6001();',
      );
    }
  });
});

describe('UNCONFIRMED_WEBHOOKS=hold, without gateway keys', () => {
  it('stores a webhook and keeps it out of the mirror; signed postbacks still apply', async () => {
    const holdQueue = createTestQueuePrefix();
    const holding = await startTestPaymirror({
      db: t.db,
      queue: holdQueue,
      env: { UNCONFIRMED_WEBHOOKS: 'hold' },
    });
    try {
      const hook = await holding.webhook(webhookSaleBody({ id: 5901, status: 'PAGO' }));
      expect(hook.status).toBe(200);
      expect(await processed(hook.body.id as number)).toEqual({
        state: 'processed',
        outcome: 'held',
      });
      expect(await saleStatus(5901)).toBeUndefined();
      expect(await history('sale', 5901)).toEqual([]);

      const post = await holding.postback(postbackBody({ id: 5901, status: 'PAGO' }));
      expect(await processed(post.body.id as number)).toMatchObject({ outcome: 'applied' });
      expect(await saleStatus(5901)).toBe('PAGO');
    } finally {
      await holding.close();
      await holdQueue.drop();
    }
  });
});
