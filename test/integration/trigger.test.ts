import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { POSTBACK_SECRET, SELLER_USER_ID, WEBHOOK_TOKEN } from '../support/fixtures.js';
import { runCli } from '../support/cli.js';
import { POSTBACK_TRANSACTION_KEYS } from '../sandbox/support/specSchemas.js';
import { useTestApp } from '../support/testApp.js';

// `paymirror trigger` against a running paymirror, as a newcomer would use it.
// Without gateway keys: what it sends is applied as sent (signed postbacks need no read).
const t = useTestApp();

const port = () => new URL(t.app.url).port;
const env = (extra: Record<string, string> = {}) => ({
  DATABASE_URL: t.db.url,
  REDIS_URL: t.queue.redisUrl,
  QUEUE_PREFIX: t.queue.prefix,
  PORT: port(),
  HOST: '127.0.0.1',
  POSTBACK_SECRETS: POSTBACK_SECRET,
  WEBHOOK_TOKENS: WEBHOOK_TOKEN,
  SELLER_USER_ID: String(SELLER_USER_ID),
  LOG_LEVEL: 'warn',
  ...extra,
});

async function trigger(args: string[], extra: Record<string, string> = {}, cwd?: string) {
  const run = runCli(['trigger', ...args], env(extra), cwd ? { cwd } : {});
  const { code } = await run.exited;
  return { code, stdout: run.stdout(), output: run.output() };
}

interface Triggered {
  event: string;
  sent: { channel: string; status: string; httpStatus: number; body: Record<string, unknown> }[];
  mirror: {
    sale?: { id: number; status: string };
    withdrawal?: { id: number; status: string };
    history: { toStatus: string; source: string }[];
  };
}

describe('paymirror trigger', { timeout: 60_000 }, () => {
  it.each([
    ['sale.paid', ['PAGO'], 'PAGO'],
    ['sale.refunded', ['PAGO', 'ESTORNADO'], 'ESTORNADO'],
    ['sale.med_won', ['PAGO', 'MED', 'PAGO'], 'PAGO'],
    ['sale.med_lost', ['PAGO', 'MED', 'ESTORNADO'], 'ESTORNADO'],
    ['sale.chargeback', ['PAGO', 'CHARGEBACK'], 'CHARGEBACK'],
  ])('%s: signed postbacks to PORT, then the mirror row (--wait)', async (event, steps, last) => {
    const { code, stdout, output } = await trigger([event, '--wait', '--format', 'json']);
    expect(code, output).toBe(0);
    const result = JSON.parse(stdout) as Triggered;
    expect(result.sent.map((s) => [s.channel, s.status, s.httpStatus])).toEqual(
      steps.map((status) => ['postback', status, 200]),
    );
    expect(result.mirror.sale?.status).toBe(last);
    expect(result.mirror.history.map((h) => h.toStatus)).toEqual(steps);
    // What was sent is a notification as the gateway writes it, signed over those bytes.
    const body = result.sent[0]?.body as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(POSTBACK_TRANSACTION_KEYS);
  });

  it.each([
    ['withdrawal.completed', 'COMPLETED'],
    ['withdrawal.rejected', 'REJECTED'],
  ])('%s: webhooks, confirmed or not, and what the mirror made of them', async (event, last) => {
    const { code, stdout } = await trigger([event, '--format', 'json']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as Triggered;
    expect(result.sent.map((s) => [s.channel, s.status, s.httpStatus])).toEqual([
      ['webhook', 'PROCESSING', 200],
      ['webhook', last, 200],
    ]);
    expect(result.sent[0]?.body).toMatchObject({ type: 'WITHDRAWAL', userId: SELLER_USER_ID });
  });

  it('prints what it sent, never the webhook token', async () => {
    const { code, stdout } = await trigger(['sale.paid', '--channel', 'webhook']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^sent webhook POST \/webhooks\/:token: sale:\d+ PAGO → 200 accepted/m);
    expect(stdout).toMatch(/"type":"TRANSACTION"/);
    expect(stdout).not.toContain(WEBHOOK_TOKEN);
  });

  it('signs with the secret development mode kept in .paymirror/dev.env', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'paymirror-cwd-'));
    mkdirSync(join(cwd, '.paymirror'));
    writeFileSync(join(cwd, '.paymirror', 'dev.env'), `POSTBACK_SECRETS=${POSTBACK_SECRET}\n`);
    const kept = await trigger(['sale.paid'], { POSTBACK_SECRETS: '' }, cwd);
    expect(kept.code, kept.output).toBe(0);
    expect(kept.stdout).toMatch(/→ 200 accepted/);
    const other = await trigger(['sale.paid'], { POSTBACK_SECRETS: 'another-secret-0123456789' });
    expect(other.code).toBe(1);
    expect(other.output).toMatch(/answered 401[^\n]*other POSTBACK_SECRETS/);
  });

  it('--url sends elsewhere; nothing listening is one line', async () => {
    const { code, output } = await trigger(['sale.paid', '--url', 'http://127.0.0.1:1']);
    expect(code).toBe(1);
    expect(output).toMatch(
      /^paymirror: nothing answers at http:\/\/127\.0\.0\.1:1: is paymirror running\?/,
    );
  });
});
