import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
import { startCountingProxy } from '../support/countingProxy.js';
import { startTestSandbox } from '../support/sandbox.js';
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

/** Sends one cashout; an earlier unresolved attempt must not block it. */
async function send(options: { forced?: boolean } = {}) {
  const result = await requestCashout(deps(), request, options);
  if (result.kind === 'blocked') throw new Error(`blocked by attempt ${result.blockedBy.id}`);
  return result;
}

// Each test starts with no unresolved attempt (the cashout guard would hold the next one).
beforeEach(async () => {
  await sql()`update cashout_attempts set outcome = 'not_paid'
               where outcome in ('pending', 'unknown')`;
});

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
    const result = await send();
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
    const result = await send();
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
    const result = await send();
    expect(result.kind).toBe('rejected');
    expect(await attempt(result.attemptId)).toMatchObject({ outcome: 'rejected' });
  });

  it('a success is recorded with its withdrawal, and mirrored', async () => {
    reply = { status: 201, body: withdrawalWire({ id: 9101, amount: '150.5', status: 'PENDING' }) };
    const result = await send();
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
    const unknown = await send();
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

describe('the cashout guard', () => {
  it('sends nothing while an attempt is unknown, unless forced; a resolve lifts it', async () => {
    reply = 'destroy';
    const unknown = await send();
    const before = gateway.requests.length;
    const blocked = await requestCashout(deps(), request);
    expect(blocked).toMatchObject({
      kind: 'blocked',
      blockedBy: { id: unknown.attemptId, outcome: 'unknown' },
    });
    expect(postsSince(before)).toBe(0);

    reply = { status: 201, body: withdrawalWire({ id: 9301, amount: '150.5', status: 'PENDING' }) };
    const forced = await send({ forced: true });
    expect(forced.kind).toBe('succeeded');
    expect(postsSince(before)).toBe(1);
    // The forced one does not lift the guard: the unknown attempt still holds it.
    expect((await requestCashout(deps(), request)).kind).toBe('blocked');

    await resolveCashoutAttempt(deps(), unknown.attemptId, { kind: 'not_paid' });
    reply = { status: 201, body: withdrawalWire({ id: 9302, amount: '150.5', status: 'PENDING' }) };
    expect((await requestCashout(deps(), request)).kind).toBe('succeeded');
  });

  it('holds in the database: a second unforced unresolved attempt cannot be written', async () => {
    await sql()`insert into cashout_attempts (amount_cents, pix_key) values (100, 'k-12345678')`;
    await expect(
      sql()`insert into cashout_attempts (amount_cents, pix_key) values (100, 'k-12345678')`,
    ).rejects.toThrow(/cashout_attempts_one_unresolved/);
  });
});

describe('two `paymirror cashout` at once', () => {
  it('let exactly one POST reach the gateway', async () => {
    const sandbox = await startTestSandbox({ initialBalanceCents: 1_000_000 });
    const proxy = await startCountingProxy(sandbox.url);
    try {
      proxy.hold('/api/public/cashout');
      const env = {
        ...sandbox.env,
        GATEWAY_BASE_URL: proxy.url,
        DATABASE_URL: test().url,
        LOG_LEVEL: 'silent',
      };
      const args = ['cashout', '--amount', '150.00', '--pix-key', 'maria@example.com'];
      const runs = [runCli(args, env), runCli(args, env)];
      const exits = runs.map((run) => run.exited);
      // The held POST keeps the first attempt pending: the other process must give up on its
      // own (without the guard, a second POST arrives instead).
      await Promise.race([...exits, until(() => proxy.posts('/api/public/cashout') >= 2)]);
      proxy.release('/api/public/cashout');
      const codes = (await Promise.all(exits)).map((exit) => exit.code);
      expect(codes.sort()).toEqual([0, 1]);
      expect(proxy.posts('/api/public/cashout')).toBe(1);
      const refused = runs.find((run) => /not sent/.test(run.output()));
      expect(refused?.output()).toMatch(/Cashout attempt \d+ .* is pending/);
      expect(refused?.output()).toMatch(/paymirror cashouts resolve \d+/);
    } finally {
      await proxy.close();
      await sandbox.close();
    }
  });
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}
