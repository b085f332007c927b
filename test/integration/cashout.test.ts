import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import { createLogger } from '../../src/log/logger.js';
import { resolveCashoutAttempt } from '../../src/operations/cashoutAttempts.js';
import { requestCashout } from '../../src/operations/requestCashout.js';
import {
  clientFor,
  PRIVATE_KEY,
  PUBLIC_KEY,
  startFakeGateway,
  withdrawalWire,
  type FakeGateway,
  type Reply,
} from '../gateway/fakeGateway.js';
import { runCli } from '../support/cli.js';
import { useTestDatabase } from '../support/services.js';

// A cashout moves money: every attempt is a row before the POST, the POST is sent once, and an
// answer that does not say "refused" is an unknown outcome, never a plain failure (README,
// "Cashouts").
const test = useTestDatabase();
let gateway: FakeGateway;
let reply: Reply = { status: 500 };

beforeAll(async () => {
  gateway = await startFakeGateway(() => reply);
});
afterAll(async () => {
  await gateway?.close();
});

const sql = () => test().database.sql;
const logs: Record<string, unknown>[] = [];
const logger = createLogger({
  level: 'info',
  destination: { write: (line: string) => void logs.push(JSON.parse(line)) },
});
const deps = () => ({
  sql: test().database.sql,
  gateway: clientFor(gateway, { timeoutMs: 300 }),
  policy: DEFAULT_WATCH_POLICY,
  logger,
});
const request = { amountCents: 15050, pixKey: 'maria@example.com', pixKeyType: 'EMAIL' as const };

async function attempt(id: number) {
  const [row] = await sql()`
    select outcome, withdrawal_id, amount_cents, detail, raw_answer, finished_at is not null as finished
      from cashout_attempts where id = ${id}`;
  return row;
}

function postsSince(before: number): number {
  return gateway.requests.slice(before).filter((r) => r.method === 'POST').length;
}

describe('cashout outcomes', () => {
  it.each<[string, Reply]>([
    ['a time-out', 'hang'],
    ['a dropped connection', 'destroy'],
    ['a 5xx', { status: 502, body: '<html>Bad gateway</html>' }],
    ['a 2xx that does not decode', { status: 200, body: { ok: true, id: 'w-1' } }],
  ])('%s is an unknown outcome, recorded, sent once', async (_name, answer) => {
    reply = answer;
    const before = gateway.requests.length;
    const result = await requestCashout(deps(), request);
    expect(result.kind).toBe('unknown');
    expect(postsSince(before)).toBe(1);
    expect(await attempt(result.attemptId)).toMatchObject({
      outcome: 'unknown',
      amount_cents: 15050,
      withdrawal_id: null,
      finished: true,
    });
    expect(logs.at(-1)).toMatchObject({ attemptId: result.attemptId, outcome: 'unknown' });
  });

  it('keeps the raw answer of a 2xx that does not decode, keys redacted', async () => {
    reply = { status: 200, body: { echo: PRIVATE_KEY, id: 'w-2' } };
    const result = await requestCashout(deps(), request);
    const row = await attempt(result.attemptId);
    expect(row?.raw_answer).toContain('w-2');
    expect(row?.raw_answer).not.toContain(PRIVATE_KEY);
    expect(JSON.stringify(logs.at(-1))).not.toContain(PRIVATE_KEY);
  });

  it('a refusal in words is rejected: nothing paid', async () => {
    reply = {
      status: 422,
      body: { message: 'Saldo insuficiente', errorType: 'INSUFFICIENT_BALANCE' },
    };
    const result = await requestCashout(deps(), request);
    expect(result.kind).toBe('rejected');
    expect(await attempt(result.attemptId)).toMatchObject({ outcome: 'rejected' });
  });

  it('a success is recorded with its withdrawal, and mirrored', async () => {
    reply = { status: 201, body: withdrawalWire({ id: 9101, amount: '150.5', status: 'PENDING' }) };
    const result = await requestCashout(deps(), request);
    expect(result).toMatchObject({ kind: 'succeeded', recordError: null });
    expect(await attempt(result.attemptId)).toMatchObject({
      outcome: 'succeeded',
      withdrawal_id: 9101,
    });
    expect(await sql()`select status from withdrawals where id = 9101`).toEqual([
      { status: 'PENDING' },
    ]);
  });

  it('an unknown one is resolved against the gateway, never with the wrong withdrawal', async () => {
    reply = 'destroy';
    const unknown = await requestCashout(deps(), request);
    reply = { status: 200, body: withdrawalWire({ id: 9102, amount: '99.99' }) };
    await expect(
      resolveCashoutAttempt(deps(), unknown.attemptId, { kind: 'paid', withdrawalId: 9102 }),
    ).rejects.toThrow(/not attempt/);
    reply = { status: 200, body: withdrawalWire({ id: 9103, amount: '150.5' }) };
    const resolved = await resolveCashoutAttempt(deps(), unknown.attemptId, {
      kind: 'paid',
      withdrawalId: 9103,
    });
    expect(resolved).toMatchObject({ outcome: 'succeeded', withdrawalId: 9103 });
    expect(await sql()`select status from withdrawals where id = 9103`).toEqual([
      { status: 'COMPLETED' },
    ]);
  });
});

describe('paymirror cashout', () => {
  const env = () => ({
    DATABASE_URL: test().url,
    GATEWAY_BASE_URL: gateway.baseUrl,
    GATEWAY_PUBLIC_KEY: PUBLIC_KEY,
    GATEWAY_PRIVATE_KEY: PRIVATE_KEY,
    GATEWAY_TIMEOUT_MS: '300',
    LOG_LEVEL: 'silent',
  });
  const args = ['cashout', '--amount', '150.50', '--pix-key', 'maria@example.com'];

  it('--dry-run sends nothing and records nothing, and names unresolved attempts', async () => {
    const [counted] = await sql()`select count(*)::int as attempts from cashout_attempts`;
    const attempts = counted?.attempts as number;
    const posts = gateway.requests.length;
    const run = runCli([...args, '--dry-run'], env());
    expect((await run.exited).code).toBe(0);
    const printed = JSON.parse(run.stdout()) as Record<string, unknown>;
    expect(printed).toMatchObject({
      dryRun: true,
      wouldSend: { amount: 150.5, pixKey: 'maria@example.com', pixKeyType: 'CPF' },
    });
    const unresolved = await sql()`select id from cashout_attempts
                                    where outcome in ('pending', 'unknown')`;
    expect(printed.unresolvedAttempts).toEqual(
      expect.arrayContaining(unresolved.map((row) => Number(row.id))),
    );
    if (unresolved.length > 0) expect(run.output()).toMatch(/no known outcome/);
    expect(gateway.requests.length).toBe(posts);
    expect(await sql()`select count(*)::int as attempts from cashout_attempts`).toEqual([
      { attempts },
    ]);
  });

  it('says "outcome unknown — do not retry before checking" with its own exit code', async () => {
    reply = 'hang';
    const run = runCli(args, env());
    expect((await run.exited).code).toBe(3);
    expect(run.output()).toMatch(/outcome unknown — do not retry before checking/);
    expect(run.output()).toMatch(/"error": "CashoutOutcomeUnknown"/);
  });

  it('prints the new withdrawal even when it cannot be written to the mirror', async () => {
    reply = { status: 201, body: withdrawalWire({ id: 9201, amount: '150.5', status: 'PENDING' }) };
    // The mirror refuses the write: a withdrawal with this id breaks a check constraint.
    await sql()`alter table withdrawals add constraint test_refuse_9201 check (id <> 9201)`;
    try {
      const run = runCli(args, env());
      expect((await run.exited).code).toBe(0);
      expect(run.output()).toMatch(/"id": 9201/);
      expect(run.output()).toMatch(/not written to the mirror/);
      const [row] = await sql()`select outcome, withdrawal_id from cashout_attempts
                                 where withdrawal_id = 9201`;
      expect(row).toEqual({ outcome: 'succeeded', withdrawal_id: 9201 });
    } finally {
      await sql()`alter table withdrawals drop constraint test_refuse_9201`;
    }
  });
});
