import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import {
  POSTBACK_SECRET,
  WEBHOOK_TOKEN,
  postbackBody,
  withdrawalBody,
} from '../support/fixtures.js';
import { runCli } from '../support/cli.js';
import { inboxRowFinished } from '../support/paymirror.js';
import { useTestApp } from '../support/testApp.js';

// The mirror's own record from the CLI, the inbox followed live, a transition resent to the feed.
const t = useTestApp();
const env = () => ({
  DATABASE_URL: t.db.url,
  REDIS_URL: t.queue.redisUrl,
  QUEUE_PREFIX: t.queue.prefix,
  POSTBACK_SECRETS: POSTBACK_SECRET,
  WEBHOOK_TOKENS: WEBHOOK_TOKEN,
  LOG_LEVEL: 'warn',
});

async function cli(args: string[]) {
  const run = runCli(args, env());
  const { code } = await run.exited;
  return { code, stdout: run.stdout(), output: run.output() };
}

async function paidThenRefunded(id: number): Promise<number[]> {
  const ids: number[] = [];
  for (const status of ['PAGO', 'ESTORNADO']) {
    const answer = await t.app.postback(postbackBody({ id, status }));
    ids.push(answer.body.id as number);
    await inboxRowFinished(t.sql(), answer.body.id as number);
  }
  return ids;
}

describe('paymirror mirror', () => {
  it('sale <id> --format json: the row, items, history, deliveries, discrepancies and journal', async () => {
    const inboxIds = await paidThenRefunded(9501);
    const { code, stdout } = await cli(['mirror', 'sale', '9501', '--format', 'json']);
    expect(code).toBe(0);
    const doc = JSON.parse(stdout) as Record<string, unknown>;
    expect(doc.sale).toMatchObject({ id: 9501, status: 'ESTORNADO', amountCents: 15000 });
    expect(doc.items).toMatchObject([{ itemId: 1, title: 'Camiseta', unitPriceCents: 15000 }]);
    expect(doc.history).toMatchObject([
      { fromStatus: null, toStatus: 'PAGO', source: 'postback', inboxEventId: inboxIds[0] },
      { fromStatus: 'PAGO', toStatus: 'ESTORNADO', source: 'postback', inboxEventId: inboxIds[1] },
    ]);
    expect((doc.deliveries as { id: number }[]).map((d) => d.id)).toEqual(inboxIds);
    expect(doc.discrepancies).toEqual([]);
    // The postback carried the gross only: the books hold it, then the refund takes it back.
    expect(doc.journal).toMatchObject([
      { kind: 'payment', account: 'available', amountCents: 15000, resourceId: 9501 },
      { kind: 'refund', account: 'available', amountCents: -15000, resourceId: 9501 },
    ]);
  });

  it('sale <id> as a table and as CSV: each part under its name', async () => {
    await paidThenRefunded(9502);
    const table = await cli(['mirror', 'sale', '9502']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^# sale\nfield +value\n/);
    expect(table.stdout).toMatch(/^status +ESTORNADO$/m);
    expect(table.stdout).toMatch(/^# history\n/m);
    expect(table.stdout).toMatch(/^# deliveries\n/m);
    expect(table.stdout).toMatch(/^# discrepancies\n\(none\)$/m);
    expect(table.stdout).toMatch(/^# journal\n/m);
    const csv = await cli(['mirror', 'sale', '9502', '--format', 'csv']);
    expect(csv.code).toBe(0);
    expect(csv.stdout).toMatch(/^# sale\nid,status,paymentMethod,amountCents,/);
    expect(csv.stdout).toMatch(/^9502,ESTORNADO,PIX,15000,/m);
  });

  it('withdrawal <id>: its row and history', async () => {
    const answer = await t.app.webhook(
      withdrawalBody({ id: 9601, status: 'COMPLETED', updatedAt: '2026-11-20T10:00:00.000Z' }),
    );
    await inboxRowFinished(t.sql(), answer.body.id as number);
    const { code, stdout } = await cli(['mirror', 'withdrawal', '9601', '--format', 'json']);
    expect(code).toBe(0);
    const doc = JSON.parse(stdout) as Record<string, unknown>;
    expect(doc.withdrawal).toMatchObject({ id: 9601, status: 'COMPLETED', amountCents: 15050 });
    expect(doc.history).toMatchObject([{ toStatus: 'COMPLETED', source: 'webhook' }]);
    expect(doc).not.toHaveProperty('items');
  });

  it('an id the mirror does not have: one line, exit 1', async () => {
    const { code, output } = await cli(['mirror', 'sale', '9999999']);
    expect(code).toBe(1);
    expect(output).toBe('paymirror: no sale 9999999 in the mirror\n');
  });
});

describe('paymirror inbox tail', () => {
  it('prints each new delivery and again when the worker settles it', async () => {
    const tail = runCli(['inbox', 'tail', '--format', 'json'], env());
    try {
      // The tail starts at the newest row: only what comes after shows.
      await tail.waitForOutput(/following the inbox after #\d+/);
      const answer = await t.app.postback(postbackBody({ id: 9701, status: 'PAGO' }));
      const id = answer.body.id as number;
      await tail.waitForOutput(new RegExp(`"id":${id},[^\\n]*"state":"processed"`));
      const lines = tail
        .stdout()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.every((line) => line.id === id)).toBe(true);
      expect(lines.at(-1)).toMatchObject({
        id,
        channel: 'postback',
        resource: 'sale:9701',
        status: 'PAGO',
        state: 'processed',
        outcome: 'applied',
      });
    } finally {
      tail.child.kill('SIGINT');
      expect((await tail.exited).code).toBe(0);
    }
  });

  it('--after 0 shows the rows already there, one table line each', async () => {
    await paidThenRefunded(9702);
    const tail = runCli(['inbox', 'tail', '--after', '0'], env());
    try {
      await tail.waitForOutput(/postback +sale:9702 +ESTORNADO +processed +applied/);
    } finally {
      tail.child.kill('SIGTERM');
      expect((await tail.exited).code).toBe(0);
    }
  });
});

describe('paymirror inbox replay --to-feed', () => {
  it('puts the transition on the feed again, with the status_history row as its data', async () => {
    await paidThenRefunded(9801);
    const [row] = await t.sql()<{ id: number; recorded_at: Date }[]>`
      select id, recorded_at from status_history
       where resource_type = 'sale' and resource_id = 9801 and to_status = 'ESTORNADO'`;
    const historyId = row?.id as number;
    const { code, stdout } = await cli(['inbox', 'replay', '--to-feed', String(historyId)]);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      new RegExp(`resent transition ${historyId} \\(sale 9801: PAGO → ESTORNADO\\)`),
    );
    const queue = new Queue('paymirror-transitions', {
      connection: { url: t.queue.redisUrl },
      prefix: t.queue.prefix,
    });
    try {
      const jobs = await queue.getJobs(['waiting']);
      expect(jobs.map((job) => [job.id?.replace(/\d+$/, 'N'), job.data])).toEqual([
        [
          `transition-${historyId}-replay-N`,
          {
            historyId,
            resourceType: 'sale',
            resourceId: 9801,
            fromStatus: 'PAGO',
            toStatus: 'ESTORNADO',
            source: 'postback',
            recordedAt: row?.recorded_at.toISOString(),
          },
        ],
      ]);
    } finally {
      await queue.close();
    }
  });

  it('an unknown transition: one line, exit 1', async () => {
    const { code, output } = await cli(['inbox', 'replay', '--to-feed', '99999999']);
    expect(code).toBe(1);
    expect(output).toMatch(/^paymirror: no transition 99999999/);
  });
});
