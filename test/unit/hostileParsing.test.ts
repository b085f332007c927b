import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildDelivery } from '../../src/inbox/delivery.js';
import { verifyPostbackSignature } from '../../src/ingress/postbackSignature.js';
import { isJsonContentType, parseJsonObject } from '../../src/ingress/rawBody.js';
import {
  createSourceAllowlist,
  matchesWebhookToken,
  sourceAddressOf,
} from '../../src/ingress/webhookAuth.js';
import type { Channel } from '../../src/notifications/notification.js';
import { parseNotification } from '../../src/notifications/parseNotification.js';
import { postbackBody, webhookSaleBody, withdrawalBody } from '../support/fixtures.js';

// Below HTTP: every pure function hostile input reaches at the ingress is total
// (never throws, whatever the bytes), and whatever it accepts is safe to store.

const SECRET = 'current-secret-0123456789';
const hmac = (body: string | Buffer, secret = SECRET) =>
  createHmac('sha256', secret).update(body).digest('hex');

/** Leaves that break naive parsers: non-finite, unsafe and negative numbers, unicode digits. */
const hostileLeaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    Number.POSITIVE_INFINITY, // what JSON.parse makes of 1e309
    Number.NEGATIVE_INFINITY,
    Number.NaN,
    -0,
    2 ** 63,
    2 ** 53 + 2,
    Number.MAX_SAFE_INTEGER,
    Number.MIN_VALUE,
    -1,
    0.1,
    1.5,
    'NaN',
    '١٢٣',
    '１２３',
    '1e3',
    '-1',
    ' 15000',
    '150.505',
    '150.5',
    '15000',
    '\u0000',
    '\ud800',
    '\udc00\ud800',
    '+275760-09-13T00:00:00.000Z',
    '-271821-04-20T00:00:00.000Z',
    '0000-01-01T00:00:00.000Z',
    '2026-11-20T10:00:00.000Z',
    'PAGO',
    'PIX',
    'WITHDRAWAL',
    'TRANSACTION',
    null,
    true,
    [],
    {},
  ),
  fc.double(),
  fc.integer(),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

/** A notification whose fields are hostile leaves (each field kept from the fixture or not). */
const hostileNotification: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    fc.constantFrom(
      postbackBody({ id: 1, status: 'PAGO' }),
      webhookSaleBody({ id: 2, status: 'PAGO' }),
      withdrawalBody({ id: 3, status: 'COMPLETED', updatedAt: '2026-11-20T10:00:00.000Z' }),
    ),
    fc.dictionary(
      fc.constantFrom(
        'id',
        'userId',
        'amount',
        'fee',
        'status',
        'paymentMethod',
        'type',
        'date',
        'createdAt',
        'updatedAt',
        'processedAt',
        'shipping',
        'saleItems',
        'customerName',
        '__proto__',
      ),
      hostileLeaf,
      { maxKeys: 4 },
    ),
  )
  .map(([base, overrides]) => Object.assign({}, base, overrides));

const channel = fc.constantFrom<Channel>('postback', 'webhook');

describe('parseNotification on hostile notifications', () => {
  it('never throws, and a notice it returns holds only safe integer centavos and storable dates', () => {
    fc.assert(
      fc.property(channel, hostileNotification, (via, body) => {
        const result = parseNotification(via, body);
        if (!result.ok) {
          expect(typeof result.reason).toBe('string');
          return;
        }
        const notice = result.notice;
        expect(Number.isSafeInteger(notice.id) && notice.id > 0).toBe(true);
        const cents = [
          notice.amountCents,
          ...(notice.kind === 'sale'
            ? [notice.feeCents, ...(notice.items ?? []).map((item) => item.unitPriceCents)]
            : []),
        ];
        for (const value of cents) {
          if (value === null) continue;
          expect(Number.isSafeInteger(value) && value >= 0 && !Object.is(value, -0)).toBe(true);
        }
        const dates =
          notice.kind === 'sale'
            ? [notice.createdAt]
            : [notice.createdAt, notice.updatedAt, notice.processedAt];
        for (const date of dates) {
          if (date === null) continue;
          // What Postgres timestamptz reads back from Date#toISOString: years 0001 to 9999.
          expect(date.toISOString()).toMatch(/^\d{4}-\d{2}-\d{2}T/);
          expect(date.getUTCFullYear()).toBeGreaterThanOrEqual(1);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('buildDelivery on hostile authenticated bodies', () => {
  it('never throws, and what it hands to jsonb is storable (no U+0000, no lone surrogate)', () => {
    fc.assert(
      fc.property(
        channel,
        fc.oneof(
          hostileNotification.map((body) => JSON.stringify(body)),
          // Built as text: JSON.stringify recurses, and JSON.parse does not.
          fc
            .integer({ min: 1, max: 12_000 })
            .map((depth) => `{"id":1,"n":${'['.repeat(depth)}0${']'.repeat(depth)}}`),
          fc
            .dictionary(fc.string({ unit: 'binary', maxLength: 5 }), hostileLeaf)
            .map((body) => JSON.stringify(body)),
        ),
        (via, text) => {
          const raw = Buffer.from(text);
          const delivery = buildDelivery({
            channel: via,
            rawBody: raw,
            payload: parseJsonObject(raw) ?? {},
            headers: { 'x-signature': 'secret-derived', 'content-type': 'application/json' },
            sourceAddress: '203.0.113.9',
          });
          expect(delivery.headers['x-signature']).toBeUndefined();
          expect((delivery.notice === null) === (delivery.quarantineReason !== null)).toBe(true);
          const source = delivery.payloadSource;
          const stored =
            source.kind === 'body' ? text : source.kind === 'json' ? source.json : null;
          if (stored !== null) {
            // JSON.stringify escapes exactly these; an escaped backslash before them is text.
            expect(stored).not.toMatch(/(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('ingress checks on hostile bytes', () => {
  it('verifyPostbackSignature never throws, and accepts only the HMAC of the raw or compact body', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
          fc.json().map((text) => Buffer.from(text)),
          fc
            .integer({ min: 1, max: 20_000 })
            .map((d) => Buffer.from('['.repeat(d) + ']'.repeat(d))),
        ),
        fc.option(fc.string({ unit: 'binary', maxLength: 130 }), { nil: undefined }),
        (body, header) => {
          const accepted = verifyPostbackSignature(body, header, [SECRET]);
          const compact = (() => {
            try {
              return JSON.stringify(JSON.parse(body.toString('utf8')));
            } catch {
              return null;
            }
          })();
          const valid = [hmac(body), ...(compact === null ? [] : [hmac(compact)])];
          expect(accepted).toBe(header !== undefined && valid.includes(header.toLowerCase()));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('matchesWebhookToken never throws and matches only the exact token', () => {
    const token = 'test-webhook-token-0123456789abc';
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 300 }),
          fc.constantFrom(token.toUpperCase(), `${token} `, token.slice(1), `${token}\u0000`),
        ),
        (candidate) => {
          expect(matchesWebhookToken(candidate, [token])).toBe(false);
        },
      ),
      { numRuns: 1000 },
    );
    expect(matchesWebhookToken(token, ['other-token-0123456789', token])).toBe(true);
  });

  it('sourceAddressOf and the allowlist never throw on a forged X-Forwarded-For', () => {
    const allowlist = createSourceAllowlist(['10.0.0.0/8', '2001:db8::/32']);
    fc.assert(
      fc.property(
        fc.option(fc.oneof(fc.ipV4(), fc.ipV6(), fc.string()), { nil: undefined }),
        fc.option(
          fc.oneof(
            fc.string({ unit: 'binary', maxLength: 200 }),
            fc.array(fc.oneof(fc.ipV4(), fc.ipV6(), fc.string()), { maxLength: 5 }),
          ),
          { nil: undefined },
        ),
        fc.integer({ min: 0, max: 10 }),
        (peer, forwarded, trusted) => {
          const req = {
            socket: { remoteAddress: peer },
            headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
          } as unknown as IncomingMessage;
          const address = sourceAddressOf(req, trusted);
          expect(typeof allowlist?.allows(address)).toBe('boolean');
          if (trusted === 0)
            expect(address).toEqual(peer === undefined ? null : expect.any(String));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('isJsonContentType and parseJsonObject never throw', () => {
    fc.assert(
      fc.property(
        fc.option(fc.string({ unit: 'binary', maxLength: 60 }), { nil: undefined }),
        fc.uint8Array({ maxLength: 200 }),
        (type, bytes) => {
          expect(typeof isJsonContentType(type)).toBe('boolean');
          const parsed = parseJsonObject(Buffer.from(bytes));
          expect(parsed === null || (typeof parsed === 'object' && !Array.isArray(parsed))).toBe(
            true,
          );
        },
      ),
      { numRuns: 1000 },
    );
  });
});
