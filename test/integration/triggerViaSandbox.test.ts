import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTBACK_SECRET, SELLER_USER_ID, WEBHOOK_TOKEN } from '../support/fixtures.js';
import { runCli } from '../support/cli.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { useTestApp } from '../support/testApp.js';

// `paymirror trigger --via-sandbox`: the sandbox gateway makes the record, delivers its own
// notifications, and answers the worker's confirmations.
let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});
const t = useTestApp({ env: () => sandbox.env });

async function trigger(args: string[]) {
  const run = runCli(['trigger', ...args, '--via-sandbox', '--url', t.app.url], {
    DATABASE_URL: t.db.url,
    REDIS_URL: t.queue.redisUrl,
    QUEUE_PREFIX: t.queue.prefix,
    POSTBACK_SECRETS: POSTBACK_SECRET,
    WEBHOOK_TOKENS: WEBHOOK_TOKEN,
    SELLER_USER_ID: String(SELLER_USER_ID),
    LOG_LEVEL: 'warn',
    ...sandbox.env,
  });
  const { code } = await run.exited;
  return { code, stdout: run.stdout(), output: run.output() };
}

interface Triggered {
  sandboxMoves: { resource: string; from: string; to: string }[];
  mirror: {
    sale?: { status: string };
    withdrawal?: { status: string };
    history: { toStatus: string; source: string }[];
    deliveries: { channel: string; outcome: string }[];
  };
}

describe('paymirror trigger --via-sandbox', { timeout: 60_000 }, () => {
  it('sale.med_lost: moved in the sandbox, delivered on both channels, applied', async () => {
    const { code, stdout, output } = await trigger(['sale.med_lost', '--wait', '--format', 'json']);
    expect(code, output).toBe(0);
    const result = JSON.parse(stdout) as Triggered;
    expect(result.sandboxMoves.map((m) => m.to)).toEqual(['PAGO', 'MED', 'ESTORNADO']);
    expect(result.mirror.sale?.status).toBe('ESTORNADO');
    // The sandbox got no webhook URL of its own: trigger gave it paymirror's.
    expect(new Set(result.mirror.deliveries.map((d) => d.channel))).toEqual(
      new Set(['postback', 'webhook']),
    );
  });

  it('withdrawal.completed: a cashout in the sandbox, its webhooks confirmed by a read', async () => {
    const { code, stdout, output } = await trigger([
      'withdrawal.completed',
      '--wait',
      '--format',
      'json',
    ]);
    expect(code, output).toBe(0);
    const result = JSON.parse(stdout) as Triggered;
    expect(result.sandboxMoves.map((m) => m.to)).toEqual(['PROCESSING', 'COMPLETED']);
    expect(result.mirror.withdrawal?.status).toBe('COMPLETED');
    expect(result.mirror.deliveries.every((d) => d.outcome !== 'forged')).toBe(true);
  });
});
