import { describe, expect, it } from 'vitest';
import { postbackBody, withdrawalBody } from '../../support/fixtures.js';
import { useHostileApp, sql, expectAlive, answerOf, finished } from '../../support/hostile.js';

// Authentic bodies the worker must apply or quarantine, never fail on.
useHostileApp();
let nextId = 900_000_000;

describe('authentic bodies the worker must apply or quarantine, never fail on', () => {
  const deepJson = '['.repeat(5000) + ']'.repeat(5000);
  // What the ingress answers: `accepted` (the worker then applies or quarantines the row) or
  // `quarantined` (the ingress already knows it cannot be applied).
  type AtIngress = 'accepted' | 'quarantined';
  const cases: [
    string,
    'postback' | 'webhook',
    AtIngress,
    (id: number) => Record<string, unknown>,
  ][] = [
    [
      'shipping: a JSON string nested 5000 deep',
      'postback',
      'accepted',
      (id) => ({
        ...postbackBody({ id, status: 'PAGO' }),
        shipping: deepJson,
      }),
    ],
    [
      'shipping: a JSON string holding a lone surrogate',
      'postback',
      'accepted',
      (id) => ({
        ...postbackBody({ id, status: 'PAGO' }),
        shipping: '{"a":"\\ud800"}',
      }),
    ],
    [
      'shipping: a JSON string holding U+0000',
      'postback',
      'accepted',
      (id) => ({
        ...postbackBody({ id, status: 'PAGO' }),
        shipping: '{"a":"\\u0000"}',
      }),
    ],
    [
      'shipping: an object nested 100 deep',
      'postback',
      'accepted',
      (id) => ({
        ...postbackBody({ id, status: 'PAGO' }),
        shipping: { a: JSON.parse('['.repeat(100) + ']'.repeat(100)) as unknown },
      }),
    ],
    [
      'a sale date before the first day Postgres can store',
      'postback',
      'quarantined',
      (id) => ({
        ...postbackBody({ id, status: 'PAGO' }),
        date: '-271821-04-20T00:00:00.000Z',
      }),
    ],
    [
      'a sale date after the last day JavaScript can hold',
      'postback',
      'quarantined',
      (id) => ({
        ...postbackBody({ id, status: 'PAGO' }),
        date: '+275760-09-13T00:00:00.000Z',
      }),
    ],
    [
      'a withdrawal updatedAt before the first day Postgres can store',
      'webhook',
      'quarantined',
      (id) =>
        withdrawalBody({ id, status: 'PROCESSING', updatedAt: '-271821-04-20T00:00:00.000Z' }),
    ],
    [
      '400 items of the largest quantity and price',
      'postback',
      'quarantined',
      (id) => ({
        ...postbackBody({ id, status: 'PAGO', amount: String(Number.MAX_SAFE_INTEGER) }),
        saleItems: Array.from({ length: 400 }, (_, i) => ({
          id: i + 1,
          title: 'x'.repeat(40),
          unitPrice: String(Number.MAX_SAFE_INTEGER),
          quantity: 1_000_000,
          tangible: true,
        })),
      }),
    ],
  ];

  it.each(cases)('%s', async (_name, channel, atIngress, body) => {
    const id = (nextId += 1);
    const answer = await answerOf(JSON.stringify(body(id)), channel);
    if (answer === null) throw new Error('the body is JSON: it cannot be a 400');
    expect(answer.status).toBe(atIngress);
    // Accepted or not, the row ends applied or quarantined; the worker never fails on it.
    const row = await finished(answer.id);
    const [detail] = await sql()`select last_error from inbox_events where id = ${answer.id}`;
    expect(['processed', 'quarantined'], `${row.outcome}: ${String(detail?.last_error)}`).toContain(
      row.state,
    );
    await expectAlive();
  });
});
