import { describe, expect, it } from 'vitest';
import { eventKeyOf, parseNotification } from '../../src/notifications/parseNotification.js';
import { postbackBody, webhookSaleBody, withdrawalBody } from '../support/fixtures.js';

describe('parseNotification', () => {
  it('converts a postback into centavos, dates and items', () => {
    const result = parseNotification(
      'postback',
      postbackBody({ id: 7, status: 'PAGO', amount: '15050', shipping: '{"city":"Recife"}' }),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.notice).toMatchObject({
      kind: 'sale',
      id: 7,
      amountCents: 15050,
      feeCents: null,
      externalTransactionId: 'ext-7',
      shipping: { city: 'Recife' },
      items: [{ itemId: 1, unitPriceCents: 15050, quantity: 1, tangible: true, title: 'Camiseta' }],
    });
    expect(eventKeyOf(result.notice)).toBe('sale:7:PAGO');
  });

  it('reads the fee from a webhook as a number of centavos', () => {
    const result = parseNotification('webhook', webhookSaleBody({ id: 8, status: 'PAGO' }));
    expect(result.ok && result.notice.kind === 'sale' && result.notice.feeCents).toBe(150);
  });

  it('reads withdrawal amounts as reais and normalises updatedAt in the key', () => {
    const result = parseNotification(
      'webhook',
      withdrawalBody({
        id: 9,
        status: 'REJECTED',
        amount: '150.5',
        updatedAt: '2026-11-20T07:00:00-03:00',
      }),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.notice).toMatchObject({
      kind: 'withdrawal',
      amountCents: 15050,
      status: 'REJECTED',
    });
    expect(eventKeyOf(result.notice)).toBe('withdrawal:9:REJECTED:2026-11-20T10:00:00.000Z');
  });

  it.each([
    ['an unknown status', { status: 'PAGOU' }],
    ['a missing id', { id: undefined }],
    ['a non-integer id', { id: 1.5 }],
    ['a string id', { id: '7' }],
    ['an amount in reais', { amount: '150.50' }],
    ['a negative amount', { amount: '-1' }],
    ['an exponent amount', { amount: '1e3' }],
    ['a numeric amount', { amount: 15000 }],
    ['an unknown payment method', { paymentMethod: 'CHEQUE' }],
    ['a bad date', { date: 'yesterday' }],
    [
      'a bad item price',
      { saleItems: [{ id: 1, title: 't', unitPrice: '1,50', quantity: 1, tangible: true }] },
    ],
    ['a fractional fee', { fee: 1.5 }],
  ])('quarantines %s', (_name, override) => {
    const result = parseNotification('postback', {
      ...postbackBody({ id: 10, status: 'PAGO' }),
      ...override,
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason.length).toBeGreaterThan(0);
  });

  it('quarantines a withdrawal with more than two decimals or no updatedAt', () => {
    expect(
      parseNotification(
        'webhook',
        withdrawalBody({
          id: 11,
          status: 'COMPLETED',
          amount: '150.505',
          updatedAt: '2026-11-20T10:00:00Z',
        }),
      ).ok,
    ).toBe(false);
    expect(
      parseNotification('webhook', {
        ...withdrawalBody({ id: 11, status: 'COMPLETED', updatedAt: 'x' }),
      }).ok,
    ).toBe(false);
  });

  describe('required fields (docs/gateway.md 6.3, 6.5)', () => {
    const without = (body: Record<string, unknown>, field: string) => {
      const copy = { ...body };
      delete copy[field];
      return copy;
    };
    const sale = postbackBody({ id: 21, status: 'PAGO' });
    const hook = webhookSaleBody({ id: 21, status: 'PAGO' });
    const reasonOf = (channel: 'postback' | 'webhook', body: Record<string, unknown>) => {
      const result = parseNotification(channel, body);
      return result.ok ? 'parsed' : result.reason;
    };

    it.each(['userId', 'date', 'saleItems'])('a sale without %s is quarantined', (field) => {
      expect(reasonOf('postback', without(sale, field))).toMatch(field);
      expect(reasonOf('webhook', without(hook, field))).toMatch(field);
    });

    it('a webhook without fee, or whose transactionId is not its id, is quarantined', () => {
      expect(reasonOf('webhook', without(hook, 'fee'))).toMatch('fee');
      expect(reasonOf('webhook', without(hook, 'transactionId'))).toMatch('transactionId');
      expect(reasonOf('webhook', { ...hook, transactionId: 22 })).toMatch('transactionId');
      expect(reasonOf('postback', sale)).toBe('parsed');
    });

    it("an item whose saleId is not the sale's id is quarantined", () => {
      const items = [
        { id: 1, saleId: 99, title: 'x', unitPrice: '100', quantity: 1, tangible: false },
      ];
      expect(reasonOf('postback', { ...sale, saleItems: items })).toMatch('saleId');
      expect(
        reasonOf('postback', { ...sale, saleItems: [{ ...items[0], saleId: undefined }] }),
      ).toMatch('saleId');
    });

    it.each([
      ['2026-11-20T10:00:00.000Z', 'parsed'],
      ['2026-11-20T07:00:00-03:00', 'parsed'],
      ['2026-11-20T10:00:00', 'offset'],
      ['2026-11-20', 'offset'],
      ['20 Nov 2026 10:00:00 GMT', 'offset'],
      ['1', 'offset'],
      ['2026-02-31T10:00:00Z', 'offset'],
      ['2026-11-20T24:00:00Z', 'offset'],
      ['2026-11-20T10:00:00+25:00', 'offset'],
    ])('date %s: %s', (date, expected) => {
      const reason = reasonOf('postback', { ...sale, date });
      if (expected === 'parsed') expect(reason).toBe('parsed');
      else expect(reason).toMatch(expected);
      const withdrawal = parseNotification(
        'webhook',
        withdrawalBody({ id: 5, status: 'COMPLETED', updatedAt: date }),
      );
      expect(withdrawal.ok).toBe(expected === 'parsed');
    });

    it('a withdrawal without userId is quarantined', () => {
      const body = without(
        withdrawalBody({ id: 5, status: 'COMPLETED', updatedAt: '2026-11-20T10:00:00Z' }),
        'userId',
      );
      expect(parseNotification('webhook', body).ok).toBe(false);
    });
  });
});
