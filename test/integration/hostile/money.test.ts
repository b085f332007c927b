import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { postbackBody, webhookSaleBody, withdrawalBody } from '../../support/fixtures.js';
import {
  useHostileApp,
  RUNS,
  sql,
  expectAlive,
  NUMBER_LITERALS,
  numberLiteral,
  answerOf,
  tryJson,
  finished,
  centsOfCentsString,
  centsOfCentsNumber,
  centsOfReaisString,
  centsStringLiteral,
  centsNumberLiteral,
  reaisLiteral,
} from '../../support/hostile.js';

// Money: what reaches the mirror is integer centavos, exactly the amount sent, or nothing.
useHostileApp();
let nextId = 900_000_000;

describe('money columns', () => {
  it('every _cents column of the mirror is bigint', async () => {
    const rows = await sql()<{ table_name: string; column_name: string; data_type: string }[]>`
      select table_name, column_name, data_type from information_schema.columns
       where table_schema = 'public' and column_name like '%\\_cents' escape '\\'
       order by table_name, column_name`;
    const tables = new Set(rows.map((row) => row.table_name));
    for (const table of ['sales', 'sale_items', 'withdrawals']) expect(tables).toContain(table);
    expect(rows.filter((row) => row.data_type !== 'bigint')).toEqual([]);
  });

  it('a signed postback amount lands as exactly those integer centavos, or is quarantined', async () => {
    await fc.assert(
      fc.asyncProperty(centsStringLiteral, async (amountLiteral) => {
        const id = (nextId += 1);
        const body = JSON.stringify({
          ...postbackBody({ id, status: 'PAGO' }),
          amount: '__AMOUNT__',
        });
        const raw = body.replace('"__AMOUNT__"', amountLiteral);
        const answer = await answerOf(raw, 'postback');
        if (answer === null) return;
        const expected = centsOfCentsString(tryJson(raw)?.amount);
        if (expected === null) {
          expect(answer.status).toBe('quarantined');
          expect(await sql()`select 1 from sales where id = ${id}`).toHaveLength(0);
          return;
        }
        expect(answer.status).toBe('accepted');
        expect(await finished(answer.id)).toEqual({ state: 'processed', outcome: 'applied' });
        const rows = await sql()<{ type: string; cents: string; fraction: string }[]>`
          select pg_typeof(amount_cents)::text as type, amount_cents::text as cents,
                 (amount_cents::numeric % 1)::text as fraction
            from sales where id = ${id}`;
        expect(rows).toEqual([{ type: 'bigint', cents: expected, fraction: '0' }]);
      }),
      { numRuns: RUNS },
    );
  });

  it('a webhook fee is parsed as exact integer centavos or quarantined, and never written', async () => {
    await fc.assert(
      fc.asyncProperty(centsNumberLiteral, async (feeLiteral) => {
        const id = (nextId += 1);
        const body = JSON.stringify({ ...webhookSaleBody({ id, status: 'PAGO' }), fee: '__FEE__' });
        const raw = body.replace('"__FEE__"', feeLiteral);
        const answer = await answerOf(raw, 'webhook');
        if (answer === null) return;
        if (centsOfCentsNumber(tryJson(raw)?.fee) === null) {
          expect(answer.status).toBe('quarantined');
          expect(await sql()`select 1 from sales where id = ${id}`).toHaveLength(0);
          return;
        }
        expect(answer.status).toBe('accepted');
        expect(await finished(answer.id)).toEqual({ state: 'processed', outcome: 'applied' });
        // Money comes from a signed postback or a gateway read, never from a webhook's fee.
        const rows = await sql()<{ type: string; cents: string | null }[]>`
          select pg_typeof(fee_cents)::text as type, fee_cents::text as cents
            from sales where id = ${id}`;
        expect(rows).toEqual([{ type: 'bigint', cents: null }]);
      }),
      { numRuns: RUNS },
    );
  });

  it('a withdrawal amount in reais lands as exactly those integer centavos, or is quarantined', async () => {
    await fc.assert(
      fc.asyncProperty(reaisLiteral, async (amountLiteral) => {
        const id = (nextId += 1);
        const body = JSON.stringify({
          ...withdrawalBody({ id, status: 'PROCESSING', updatedAt: '2026-11-20T10:00:00.000Z' }),
          amount: '__AMOUNT__',
        });
        const raw = body.replace('"__AMOUNT__"', amountLiteral);
        const answer = await answerOf(raw, 'webhook');
        if (answer === null) return;
        const expected = centsOfReaisString(tryJson(raw)?.amount);
        if (expected === null) {
          expect(answer.status).toBe('quarantined');
          expect(await sql()`select 1 from withdrawals where id = ${id}`).toHaveLength(0);
          return;
        }
        expect(answer.status).toBe('accepted');
        expect(await finished(answer.id)).toEqual({ state: 'processed', outcome: 'applied' });
        const rows = await sql()<{ type: string; cents: string }[]>`
          select pg_typeof(amount_cents)::text as type, amount_cents::text as cents
            from withdrawals where id = ${id}`;
        expect(rows).toEqual([{ type: 'bigint', cents: expected }]);
      }),
      { numRuns: RUNS },
    );
  });

  it('ids that are not positive safe integers are quarantined, never mirrored', async () => {
    await fc.assert(
      fc.asyncProperty(numberLiteral, async (idLiteral) => {
        const raw = JSON.stringify({
          ...postbackBody({ id: 1, status: 'PAGO' }),
          id: '__ID__',
          saleItems: [],
          n: (nextId += 1),
        }).replace('"__ID__"', idLiteral);
        const answer = await answerOf(raw, 'postback');
        if (answer === null) return;
        const id = tryJson(raw)?.id;
        const valid = typeof id === 'number' && Number.isSafeInteger(id) && id > 0;
        if (!valid) expect(answer.status).toBe('quarantined');
        else expect(['accepted', 'duplicate']).toContain(answer.status);
      }),
      { numRuns: NUMBER_LITERALS.length * 2 },
    );
    const mirrored = await sql()<{ id: string }[]>`select id::text from sales where id <= 0`;
    expect(mirrored).toEqual([]);
    await expectAlive();
  });
});
