import { describe, expect, it } from 'vitest';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import { writeMirror } from '../../src/mirror/applyToMirror.js';
import { parseNotification } from '../../src/notifications/parseNotification.js';
import { runCli } from '../support/cli.js';
import { postbackBody } from '../support/fixtures.js';
import { useTestDatabase } from '../support/services.js';

// `paymirror books …` as a user runs it, against a mirror the writer filled.
const test = useTestDatabase();

async function books(...args: string[]) {
  const run = runCli(['books', ...args], { DATABASE_URL: test().url });
  const { code } = await run.exited;
  return { code, stdout: run.stdout(), output: run.output() };
}

async function paid(id: number, observedAt: string) {
  const parsed = parseNotification(
    'postback',
    postbackBody({ id, status: 'PAGO', amount: '10000' }),
  );
  if (!parsed.ok || parsed.notice.kind !== 'sale') throw new Error('fixture did not parse');
  await writeMirror(
    test().database.sql,
    [
      {
        kind: 'notice',
        notice: parsed.notice,
        provenance: 'signed',
        observedAt: new Date(observedAt),
        context: { source: 'postback', inboxEventId: null },
        ambiguity: 'reconcile',
      },
    ],
    { now: new Date(observedAt), policy: DEFAULT_WATCH_POLICY },
  );
}

describe('paymirror books', () => {
  it(
    'checks, closes, reports the same closed day after a late entry, and reopens',
    { timeout: 120_000 },
    async () => {
      await paid(1, '2026-11-02T15:00:00Z');
      expect(await books('check')).toMatchObject({ code: 0 });

      expect((await books('close', '2026-11-02')).stdout).toMatch(/closed through 2026-11-02/);
      const before = await books(
        'report',
        '--from',
        '2026-11-01',
        '--to',
        '2026-11-02',
        '--format',
        'json',
      );
      expect(JSON.parse(before.stdout)).toEqual([
        {
          day: '2026-11-02',
          account: 'available',
          kind: 'payment',
          paymentMethod: 'PIX',
          entryCount: 1,
          amountCents: 10_000,
        },
      ]);

      await paid(2, '2026-11-02T16:00:00Z');
      expect(await books('check')).toMatchObject({ code: 0 });
      const after = await books(
        'report',
        '--from',
        '2026-11-01',
        '--to',
        '2026-11-02',
        '--format',
        'json',
      );
      expect(after.stdout).toBe(before.stdout);
      expect((await books('report', '--from', '2026-11-03', '--format', 'csv')).stdout).toBe(
        'day,account,kind,payment_method,entry_count,amount_cents\n' +
          '2026-11-03,available,adjustment,PIX,1,10000\n',
      );
      expect((await books('balance', '--at', '2026-11-02T23:59:59-03:00')).stdout).toMatch(
        /available R\$ 100,00, reserved R\$ 0,00 \(1 entries\)/,
      );
      const exported = (await books('export', '--from', '2026-11-03')).stdout.split('\n');
      expect(exported[0]).toBe(
        'entry_id,day,effective_at,account,kind,amount_cents,resource_type,resource_id,' +
          'payment_method,source,corrects_entry_id,original_effective_at,original_kind,recorded_at',
      );
      expect(exported[1]).toMatch(
        /^2,2026-11-03,2026-11-03T03:00:00.000Z,available,adjustment,10000,sale,2,PIX,postback,,2026-11-02T16:00:00.000Z,payment,/,
      );

      expect((await books('reopen', '2026-11-02', '--reason', 'a late statement')).stdout).toMatch(
        /books now closed through 2026-11-01/,
      );
      expect((await books('reopen', '2026-11-02')).code).toBe(2);
    },
  );

  it('exits 1 listing each record that does not tie out', async () => {
    await test().database.sql`insert into ledger_entries (resource_type, resource_id, account,
      amount_cents, effective_at, kind, source) values ('sale', 1, 'available', 5, now(), 'payment', 'test')`;
    const result = await books('check');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^sale 1 available: expected 10000, booked 10005$/m);
  });

  it('refuses to close a day that has not ended', async () => {
    const result = await books('close', '2999-01-01');
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/has not ended/);
  });
});
