import { createHash } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { trimRejected } from '../../src/inbox/rejectedDeliveries.js';
import { createLogger } from '../../src/log/logger.js';
import { userIdSchema } from '../../src/notifications/wireSchemas.js';
import { sellerOf } from '../../src/ingress/sellerCheck.js';
import {
  SELLER_USER_ID,
  WEBHOOK_TOKEN,
  postbackBody,
  sign,
  webhookSaleBody,
  withdrawalBody,
} from '../support/fixtures.js';
import { startTestPaymirror, waitFor, type TestPaymirror } from '../support/paymirror.js';
import {
  createTestDatabase,
  createTestQueuePrefix,
  type TestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';

// Issue 7 item 4: hostile input through real HTTP (raw sockets, so every byte is ours), against
// the real Postgres and Redis. Never a crash, never a 5xx, only answers of the README's table
// (plus 429 from the auth-failure limiter), never an inbox row from an unauthenticated request,
// never anything but integer centavos in a money column.

const BODY_LIMIT = 65_536;
/** README's answers, plus 429 (per-source auth-failure limit); 503 only when storage is down. */
const CONTRACT = [200, 400, 401, 403, 404, 413, 415, 429];
/** Node answers 431 itself when the request line and headers pass its 16 KiB limit. */
const NODE_HEADER_LIMIT = 16 * 1024;
const RUNS = 60;

let db: TestDatabase;
let queue: TestQueuePrefix;
let app: TestPaymirror;
const errorLines: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  queue = createTestQueuePrefix();
  app = await startTestPaymirror({
    db,
    queue,
    roles: 'ingress,worker',
    // Error-level lines only: an "unexpected ingress failure" is a bug even when answered.
    logger: createLogger({
      level: 'error',
      destination: { write: (line: string) => void errorLines.push(line) },
    }),
    env: {
      BODY_LIMIT_BYTES: String(BODY_LIMIT),
      // A row the worker cannot apply ends `failed` after three quick attempts, not ten.
      JOB_ATTEMPTS: '3',
      // Fuzzing sends thousands of unauthenticated requests from 127.0.0.1: the limiter has its
      // own test below, here it must not hide the answers under 429s.
      AUTH_FAILURES_MAX: '1000000',
      // Small so the slow-client tests finish quickly (see "slow clients").
      HEADERS_TIMEOUT_MS: '1000',
      REQUEST_TIMEOUT_MS: '2000',
    },
  });
});
afterAll(async () => {
  await app?.close();
  await queue?.drop();
  await db?.drop();
});
beforeEach(() => {
  errorLines.length = 0;
});

// ---------------------------------------------------------------------------------------------
// A raw HTTP/1.1 client: undici refuses non-ASCII header values and normalises paths (`..`).

interface RawRequest {
  readonly method?: string;
  /** Written as is (a string as UTF-8): no normalisation, no encoding. */
  readonly path: string | Buffer;
  readonly headers?: readonly (readonly [string, string | Buffer | undefined])[];
  readonly body?: Buffer;
  readonly localAddress?: string;
}

interface RawAnswer {
  /** 0: the connection closed without an answer. */
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
  readonly error: string | null;
  readonly elapsedMs: number;
}

/** fast-check prints a Buffer byte by byte: show a short text instead. */
function readable(bytes: Buffer): Buffer {
  const text = bytes.toString('latin1');
  const shown =
    text.length <= 160 ? text : `${text.slice(0, 100)}…${text.slice(-40)} (${bytes.length} bytes)`;
  return Object.assign(bytes, { [fc.toStringMethod]: () => `Buffer<${JSON.stringify(shown)}>` });
}

function bytesOf(value: string | Buffer): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
}

function requestBytes(request: RawRequest): Buffer {
  const body = request.body ?? Buffer.alloc(0);
  const parts: Buffer[] = [
    Buffer.from(`${request.method ?? 'POST'} `, 'latin1'),
    bytesOf(request.path),
    Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n', 'latin1'),
  ];
  for (const [name, value] of request.headers ?? []) {
    if (value === undefined) continue;
    parts.push(Buffer.from(`${name}: `, 'latin1'), bytesOf(value), Buffer.from('\r\n', 'latin1'));
  }
  parts.push(Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'latin1'), body);
  return Buffer.concat(parts);
}

/** Sends bytes on a fresh connection and reads until the server closes it. */
function rawExchange(
  write: (socket: Socket) => void,
  options: { baseUrl?: string; localAddress?: string; timeoutMs?: number } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(options.baseUrl ?? app.url);
  const started = Date.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | null = null;
    const socket = connect({
      host: hostname,
      port: Number(port),
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    });
    const timer = setTimeout(() => {
      error = 'client timeout';
      socket.destroy();
    }, options.timeoutMs ?? 15_000);
    socket.on('connect', () => write(socket));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseAnswer(Buffer.concat(chunks), error, Date.now() - started));
    });
  });
}

function parseAnswer(raw: Buffer, error: string | null, elapsedMs: number): RawAnswer {
  const text = raw.toString('latin1');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  const split = text.indexOf('\r\n\r\n');
  const headers = new Map<string, string>();
  for (const line of text
    .slice(0, split < 0 ? text.length : split)
    .split('\r\n')
    .slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return {
    status: match ? Number(match[1]) : 0,
    headers,
    body:
      split < 0
        ? ''
        : raw.subarray(Buffer.byteLength(text.slice(0, split + 4), 'latin1')).toString('utf8'),
    error,
    elapsedMs,
  };
}

function send(request: RawRequest, baseUrl = app.url): Promise<RawAnswer> {
  const bytes = requestBytes(request);
  return rawExchange((socket) => socket.write(bytes), {
    baseUrl,
    ...(request.localAddress ? { localAddress: request.localAddress } : {}),
  });
}

const sql = () => db.database.sql;

async function inboxCount(): Promise<number> {
  const rows = await sql()<{ n: number }[]>`select count(*)::int as n from inbox_events`;
  return rows[0]?.n ?? -1;
}

async function expectAlive(): Promise<void> {
  const health = await fetch(`${app.url}/healthz`);
  expect(health.status).toBe(200);
  expect(errorLines).toEqual([]);
}

function headerBytes(request: RawRequest): number {
  const bytes = requestBytes(request);
  return bytes.indexOf('\r\n\r\n') + 4;
}

/** The answer is one of the contract's (431 only when Node's header limit was passed). */
function expectContractStatus(request: RawRequest, answer: RawAnswer, allowed = CONTRACT): void {
  if (answer.status === 431 && headerBytes(request) > NODE_HEADER_LIMIT) return;
  expect(answer.error === null || answer.status !== 0, `no answer: ${answer.error}`).toBe(true);
  expect(allowed, `answered ${answer.status} ${answer.body.slice(0, 200)}`).toContain(
    answer.status,
  );
}

// ---------------------------------------------------------------------------------------------
// Generators.

/** JSON number literals and look-alikes that break naive parsers. */
const NUMBER_LITERALS = [
  '1e309',
  '-1e309',
  '9223372036854775808',
  '9223372036854775807',
  '18446744073709551616',
  '9007199254740993',
  '-0',
  '0',
  '0.1',
  '1.5',
  '1E2',
  '2.0',
  '4.9e-324',
  '-1',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '1_000',
  '00012',
  '"NaN"',
  '"Infinity"',
  '"١٢٣"',
  '"１２３"',
  '"१२३"',
  '"1e3"',
  '"-1"',
  '"+15000"',
  '" 15000"',
  '"15000 "',
  '"15.000,00"',
  '"15,000"',
  '"150.505"',
  '""',
  'null',
  'true',
  '[]',
  '{}',
];

const numberLiteral = fc.constantFrom(...NUMBER_LITERALS);

/** A notification-shaped object whose fields are hostile literals. */
const hostileNotification = fc
  .record({
    id: fc.oneof(numberLiteral, fc.integer({ min: 1, max: 1e9 }).map(String)),
    amount: numberLiteral,
    userId: fc.oneof(numberLiteral, fc.constant(String(SELLER_USER_ID))),
    fee: numberLiteral,
    type: fc.constantFrom('"TRANSACTION"', '"WITHDRAWAL"', '"transaction"', 'null', '1'),
    status: fc.constantFrom('"PAGO"', '"pago"', '"PAGO\\u0000"', '"💸"', 'null'),
  })
  .map(
    (f) =>
      `{"id":${f.id},"userId":${f.userId},"amount":${f.amount},"fee":${f.fee},` +
      `"type":${f.type},"status":${f.status},"paymentMethod":"PIX",` +
      `"updatedAt":"2026-11-20T10:00:00.000Z"}`,
  )
  .map((text) => readable(Buffer.from(text, 'utf8')));

const deeplyNested = fc
  .record({
    depth: fc.integer({ min: 1, max: 20_000 }),
    kind: fc.constantFrom('array', 'object'),
    closed: fc.boolean(),
  })
  .map(({ depth, kind, closed }) => {
    const [open, close] = kind === 'array' ? ['[', ']'] : ['{"a":', '}'];
    const levels = Math.min(depth, Math.floor((BODY_LIMIT - 100) / open.length));
    return Buffer.from(
      `{"type":"TRANSACTION","userId":${SELLER_USER_ID},"id":1,"n":` +
        open.repeat(levels) +
        (kind === 'array' ? '' : '0') +
        (closed ? close.repeat(levels) : close.repeat(Math.floor(levels / 2))) +
        '}',
      'utf8',
    );
  });

const invalidUtf8 = fc
  .array(
    fc.constantFrom(
      Buffer.from([0xff]),
      Buffer.from([0xc3]),
      Buffer.from([0xc0, 0xaf]), // overlong "/"
      Buffer.from([0xed, 0xa0, 0x80]), // a surrogate encoded in UTF-8 (CESU)
      Buffer.from([0xf4, 0x90, 0x80, 0x80]), // above U+10FFFF
      Buffer.from([0xef, 0xbb, 0xbf]), // BOM
      Buffer.from('{"id":', 'utf8'),
      Buffer.from('1', 'utf8'),
      Buffer.from('"', 'utf8'),
      Buffer.from('}', 'utf8'),
      Buffer.from('\\ud800', 'utf8'), // a lone surrogate escape inside a string
    ),
    { maxLength: 40 },
  )
  .map((parts) => Buffer.concat(parts));

const hugeBody = fc.integer({ min: BODY_LIMIT - 200, max: BODY_LIMIT + 5000 }).map((size) => {
  const head = `{"type":"TRANSACTION","userId":${SELLER_USER_ID},"id":7,"pad":"`;
  return Buffer.from(head + 'x'.repeat(Math.max(0, size - head.length - 2)) + '"}', 'utf8');
});

const anyBody: fc.Arbitrary<Buffer> = fc
  .oneof(
    fc.uint8Array({ maxLength: 600 }).map((bytes) => Buffer.from(bytes)),
    fc.string({ unit: 'binary', maxLength: 300 }).map((text) => Buffer.from(text, 'utf8')),
    fc.json({ maxDepth: 4 }).map((text) => Buffer.from(text, 'utf8')),
    fc.jsonValue({ maxDepth: 3 }).map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
    hostileNotification,
    deeplyNested,
    invalidUtf8,
    hugeBody,
    fc.constantFrom(
      Buffer.alloc(0),
      Buffer.from('null'),
      Buffer.from('[]'),
      Buffer.from('"{}"'),
      Buffer.from('{"id":1,"x":"\\ud800"}'), // lone high surrogate
      Buffer.from('{"id":1,"x":"\\udc00\\ud800"}'), // reversed pair
      Buffer.from('{"id":1,"x":"\\\\ud800"}'), // an escaped backslash, then text: harmless
      Buffer.from('{"id":1,"x":"\\u0000"}'),
      Buffer.from('{"__proto__":{"id":1},"constructor":{"prototype":{"polluted":true}}}'),
      Buffer.from('{"id":1,"id":2}'),
    ),
  )
  .map(readable);

const JSON_CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/problem+json',
  'application/json;charset=latin1',
];

const contentType: fc.Arbitrary<string | Buffer | undefined> = fc.oneof(
  fc.constantFrom(...JSON_CONTENT_TYPES),
  fc.constantFrom(
    undefined,
    '',
    'text/plain',
    'text/json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonx',
    'application/',
    '*/*',
    ';application/json',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
);

/** Never a valid signature of anything: wrong hex, non-hex, wrong lengths, other charsets. */
const badSignature = (body: Buffer): fc.Arbitrary<string | Buffer | undefined> => {
  const real = sign(body);
  return fc.oneof(
    fc.constantFrom<string | undefined>(
      undefined,
      '',
      'g'.repeat(64),
      'z'.repeat(64),
      '-'.repeat(64),
      `sha256=${real}`,
      real.slice(0, 63),
      `${real}0`,
      `${real.slice(0, 63)}${real.endsWith('0') ? '1' : '0'}`,
      sign(body, 'another-secret-0123456789abcdef'),
      sign(Buffer.concat([body, Buffer.from(' ')])),
      `${real}${real}`,
      'ﬀ'.repeat(64),
      '٠'.repeat(64),
    ),
    fc.stringMatching(/^[0-9a-f]{64}$/),
    fc.stringMatching(/^[0-9A-F]{64}$/),
    fc.stringMatching(/^[0-9a-fA-F]{0,130}$/),
    fc.string({
      unit: fc.constantFrom(...'ghijklmnopqrstuvwxyzGHIJKLMNOP-_=+/'),
      minLength: 64,
      maxLength: 64,
    }),
    fc.string({ unit: 'binary', maxLength: 100 }), // UTF-8 bytes, controls included
    fc.uint8Array({ maxLength: 100 }).map((bytes) => Buffer.from(bytes)), // latin1 and worse
    fc.integer({ min: 1000, max: 20_000 }).map((n) => 'a'.repeat(n)),
  );
};

/** Path segments after /webhooks/ that cannot be the configured token. */
const badToken: fc.Arbitrary<string | Buffer> = fc
  .oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 50 }).map(encodeURIComponent),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 50 }), // raw UTF-8 and controls
    fc.uint8Array({ minLength: 1, maxLength: 50 }).map((bytes) => Buffer.from(bytes)),
    fc.stringMatching(/^[A-Za-z0-9_-]{16,200}$/),
    fc.integer({ min: 1000, max: 20_000 }).map((n) => 'A'.repeat(n)),
    fc.constantFrom(
      '..',
      '.',
      '../postbacks',
      '..%2Fpostbacks',
      '%2e%2e',
      '%2e%2e%2fpostbacks',
      '%2F',
      'a/b',
      '/',
      '//',
      '',
      '%00',
      '%zz',
      '%E0%A4%A',
      '%',
      '%ff',
      '%C0%AF',
      WEBHOOK_TOKEN.toUpperCase(),
      `${WEBHOOK_TOKEN}x`,
      WEBHOOK_TOKEN.slice(0, -1),
      `${WEBHOOK_TOKEN}%00`,
      `${WEBHOOK_TOKEN}%zz`,
      `${WEBHOOK_TOKEN.slice(0, 10)}%2F${WEBHOOK_TOKEN.slice(10)}`,
      `x${WEBHOOK_TOKEN}`,
    ),
  )
  .filter((token) => !canBeTheToken(token));

/** Whether a raw path segment might name the configured token (then it is not unauthenticated). */
function canBeTheToken(token: string | Buffer): boolean {
  const text = bytesOf(token).toString('latin1').split(/[?#]/, 1)[0] ?? '';
  let decoded = text;
  try {
    decoded = decodeURIComponent(text);
  } catch {
    // undecodable: only the raw text can match
  }
  return decoded.replace(/\/+$/, '') === WEBHOOK_TOKEN;
}

// ---------------------------------------------------------------------------------------------

describe('unauthenticated hostile input', () => {
  it('postbacks with any body, content type and invalid X-Signature: 400/401/413/415, never a row', async () => {
    await fc.assert(
      fc.asyncProperty(
        anyBody.chain((body) => fc.tuple(fc.constant(body), badSignature(body), contentType)),
        async ([body, signature, type]) => {
          const before = await inboxCount();
          const request: RawRequest = {
            path: '/postbacks',
            headers: [
              ['Content-Type', type],
              ['X-Signature', signature],
            ],
            body,
          };
          const answer = await send(request);
          expectContractStatus(request, answer, [400, 401, 413, 415, 429]);
          expect(await inboxCount()).toBe(before);
        },
      ),
      { numRuns: RUNS * 3 },
    );
    await expectAlive();
  });

  it('webhooks on any path token that is not the configured one: 404 (or 400 for a malformed request line), never a row', async () => {
    await fc.assert(
      fc.asyncProperty(badToken, anyBody, contentType, async (token, body, type) => {
        const before = await inboxCount();
        const request: RawRequest = {
          path: Buffer.concat([Buffer.from('/webhooks/'), bytesOf(token)]),
          headers: [['Content-Type', type]],
          body,
        };
        const answer = await send(request);
        expectContractStatus(request, answer, [400, 404, 429]);
        expect(await inboxCount()).toBe(before);
      }),
      { numRuns: RUNS * 3 },
    );
    await expectAlive();
  });

  it('a token Express cannot percent-decode is an unknown token: the same JSON 404', async () => {
    for (const token of ['%zz', '%E0%A4%A', '%', `${WEBHOOK_TOKEN}%zz`]) {
      const answer = await send({
        path: `/webhooks/${token}`,
        headers: [['Content-Type', 'application/json']],
        body: Buffer.from('{}'),
      });
      expect(answer.status, token).toBe(404);
      expect(answer.headers.get('content-type'), token).toMatch(/^application\/json/);
    }
    await expectAlive();
  });

  it('authentic webhook token, hostile type and userId: 403 and never a row unless both are right', async () => {
    await fc.assert(
      fc.asyncProperty(hostileNotification, async (body) => {
        const before = await inboxCount();
        const request: RawRequest = {
          path: `/webhooks/${WEBHOOK_TOKEN}`,
          headers: [['Content-Type', 'application/json']],
          body,
        };
        const answer = await send(request);
        const expected = expectedWebhookStatus(body);
        expect(answer.status, answer.body).toBe(expected);
        expect(await inboxCount()).toBe(expected === 200 ? before + 1 : before);
      }),
      { numRuns: RUNS * 2 },
    );
    await expectAlive();
  });

  it('the other routes and methods answer 404, never a 5xx', async () => {
    for (const [method, path] of [
      ['GET', '/postbacks'],
      ['PUT', '/postbacks'],
      ['DELETE', `/webhooks/${WEBHOOK_TOKEN}`],
      ['POST', '/postbacks/..'],
      ['POST', '/%2e%2e/postbacks'],
      ['POST', '/webhooks'],
      ['POST', '/webhooks/'],
      ['POST', '/admin/queues'],
      ['GET', '/%zz'],
      ['GET', '/healthz/..%2f..%2fetc/passwd'],
    ] as const) {
      const answer = await send({ method, path, body: Buffer.from('{}') });
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
    await expectAlive();
  });
});

/** What the ingress answers an authentic-token webhook with this body. */
function expectedWebhookStatus(body: Buffer): number {
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    return 400;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return 400;
  const { type, userId } = payload as Record<string, unknown>;
  if (type !== 'TRANSACTION' && type !== 'WITHDRAWAL') return 403;
  const parsed = userIdSchema.safeParse(userId);
  return parsed.success && parsed.data === SELLER_USER_ID ? 200 : 403;
}

describe('authenticated hostile input', () => {
  it('any body with a valid signature: 200 (stored), 400 (not a JSON object) or 413, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(anyBody, fc.boolean(), async (body, upper) => {
        const before = await inboxCount();
        const signature = upper ? sign(body).toUpperCase() : sign(body);
        const answer = await send({
          path: '/postbacks',
          headers: [
            ['Content-Type', 'application/json'],
            ['X-Signature', signature],
          ],
          body,
        });
        const expected =
          body.length > BODY_LIMIT ? 413 : isJsonObject(body) ? userIdAnswer(body) : 400;
        expect(answer.status, answer.body).toBe(expected);
        if (expected !== 200) expect(await inboxCount()).toBe(before);
        else
          expect(['accepted', 'quarantined', 'duplicate']).toContain(
            JSON.parse(answer.body).status,
          );
      }),
      { numRuns: RUNS * 2 },
    );
    await expectAlive();
  });

  it('any body on the authentic webhook URL: 200, 400, 403 or 413, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(anyBody, async (body) => {
        const answer = await send({
          path: `/webhooks/${WEBHOOK_TOKEN}`,
          headers: [['Content-Type', 'application/json']],
          body,
        });
        const expected = body.length > BODY_LIMIT ? 413 : expectedWebhookStatus(body);
        expect(answer.status, answer.body).toBe(expected);
      }),
      { numRuns: RUNS * 2 },
    );
    await expectAlive();
  });
});

/** A signed JSON object: 200 when its userId is ours, 400 when it has none, 403 another's. */
function userIdAnswer(body: Buffer): number {
  const verdict = sellerOf(
    JSON.parse(body.toString('utf8')) as Record<string, unknown>,
    SELLER_USER_ID,
  );
  return verdict === 'ours' ? 200 : verdict === 'invalid' ? 400 : 403;
}

function isJsonObject(body: Buffer): boolean {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Money: what reaches the mirror is integer centavos, exactly the amount sent, or nothing.

let nextId = 900_000_000;

/** Sends a signed postback or an authentic webhook; null when the body is not JSON (400). */
async function answerOf(
  raw: string,
  channel: 'postback' | 'webhook',
): Promise<{ status: string; id: number } | null> {
  const answer = await send({
    path: channel === 'postback' ? '/postbacks' : `/webhooks/${WEBHOOK_TOKEN}`,
    headers: [
      ['Content-Type', 'application/json'],
      ['X-Signature', channel === 'postback' ? sign(raw) : undefined],
    ],
    body: Buffer.from(raw, 'utf8'),
  });
  const parsed = tryJson(raw);
  expect(answer.status, answer.body).toBe(parsed === undefined ? 400 : 200);
  return parsed === undefined ? null : (JSON.parse(answer.body) as { status: string; id: number });
}

function tryJson(raw: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

async function finished(inboxId: number): Promise<{ state: string; outcome: string | null }> {
  return waitFor(
    async () => {
      const rows = await sql()<{ state: string; outcome: string | null }[]>`
        select state, outcome from inbox_events where id = ${inboxId}`;
      return rows[0] && rows[0].state !== 'pending' ? rows[0] : undefined;
    },
    { what: `inbox row ${inboxId} to finish` },
  );
}

/** Centavos as the exact decimal text Postgres must hold, or null when the input is not money. */
function centsOfCentsString(value: unknown): string | null {
  if (typeof value !== 'string' || !/^[0-9]+$/.test(value)) return null;
  const cents = BigInt(value);
  return cents <= BigInt(Number.MAX_SAFE_INTEGER) ? cents.toString() : null;
}

function centsOfCentsNumber(value: unknown): string | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
    ? String(value === 0 ? 0 : value)
    : null;
}

function centsOfReaisString(value: unknown): string | null {
  const match = typeof value === 'string' ? /^([0-9]+)(?:\.([0-9]{1,2}))?$/.exec(value) : null;
  if (!match) return null;
  const cents = BigInt(match[1] ?? '0') * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
  return cents <= BigInt(Number.MAX_SAFE_INTEGER) ? cents.toString() : null;
}

const centsStringLiteral = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 64n }).map((n) => JSON.stringify(n.toString())),
  fc.nat({ max: 10_000_000 }).map((n) => JSON.stringify(String(n))),
  fc.nat({ max: 99 }).map((n) => JSON.stringify(`000${n}`)),
  numberLiteral,
);

const centsNumberLiteral = fc.oneof(
  fc.nat({ max: 10_000_000 }).map(String),
  fc.constantFrom(
    String(Number.MAX_SAFE_INTEGER),
    `${Number.MAX_SAFE_INTEGER + 2}`,
    '150.0',
    '15e1',
  ),
  numberLiteral,
);

const reaisLiteral = fc.oneof(
  fc
    .tuple(fc.bigInt({ min: 0n, max: 10n ** 17n }), fc.stringMatching(/^(\.[0-9]{0,3})?$/))
    .map(([whole, fraction]) => JSON.stringify(`${whole}${fraction}`)),
  fc.constantFrom('"150.5"', '"150.50"', '"0.01"', '".5"', '"5."', '"150,50"', '"1.5e2"', '150.5'),
  numberLiteral,
);

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

  it('a webhook fee lands as exactly those integer centavos, or is quarantined', async () => {
    await fc.assert(
      fc.asyncProperty(centsNumberLiteral, async (feeLiteral) => {
        const id = (nextId += 1);
        const body = JSON.stringify({ ...webhookSaleBody({ id, status: 'PAGO' }), fee: '__FEE__' });
        const raw = body.replace('"__FEE__"', feeLiteral);
        const answer = await answerOf(raw, 'webhook');
        if (answer === null) return;
        const expected = centsOfCentsNumber(tryJson(raw)?.fee);
        if (expected === null) {
          expect(answer.status).toBe('quarantined');
          expect(await sql()`select 1 from sales where id = ${id}`).toHaveLength(0);
          return;
        }
        expect(answer.status).toBe('accepted');
        expect(await finished(answer.id)).toEqual({ state: 'processed', outcome: 'applied' });
        const rows = await sql()<{ type: string; cents: string }[]>`
          select pg_typeof(fee_cents)::text as type, fee_cents::text as cents
            from sales where id = ${id}`;
        expect(rows).toEqual([{ type: 'bigint', cents: expected }]);
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

describe('SQL through payloads', () => {
  const injections = [
    "'; drop table sales; --",
    "' or '1'='1",
    "\\'; select pg_sleep(10); --",
    '$1, $2); delete from inbox_events; --',
    "E'\\x27'",
    "') on conflict do nothing; --",
    '"; drop table sales; --',
    '${sql`drop table sales`}',
    '1::jsonb; truncate inbox_events',
    "'); copy sales to '/tmp/x'; --",
  ];
  const text = fc.oneof(
    fc.constantFrom(...injections),
    fc.string({ unit: 'grapheme', maxLength: 60 }).filter((value) => !value.includes('\u0000')),
  );

  it('SQL in every text field of a signed postback is stored verbatim, as data', async () => {
    await fc.assert(
      fc.asyncProperty(text, text, text, text, async (name, email, pix, title) => {
        const id = (nextId += 1);
        const body = postbackBody({
          id,
          status: 'PAGO',
          customerName: name,
          customerEmail: email,
          customerDocument: name,
          customerPhone: email,
          pixKey: pix,
          externalTransactionId: pix,
          shipping: JSON.stringify({ street: name, city: email }),
        });
        const items = body.saleItems as Record<string, unknown>[];
        body.saleItems = items.map((item) => ({ ...item, title }));
        const answer = await answerOf(JSON.stringify(body), 'postback');
        expect(answer?.status).toBe('accepted');
        await finished((answer as { id: number }).id);
        const [sale] = await sql()`
          select customer_name, customer_email, customer_document, customer_phone, pix_code,
                 external_transaction_id, shipping from sales where id = ${id}`;
        expect(sale).toEqual({
          customer_name: name,
          customer_email: email,
          customer_document: name,
          customer_phone: email,
          pix_code: pix,
          external_transaction_id: pix,
          shipping: { street: name, city: email },
        });
        const [item] = await sql()`select title from sale_items where sale_id = ${id}`;
        expect(item?.title).toBe(title);
      }),
      { numRuns: 30, examples: [[injections[0], injections[1], injections[2], injections[3]]] },
    );
    const tables = await sql()<{ present: boolean }[]>`
      select to_regclass('public.sales') is not null and to_regclass('public.inbox_events') is not null
             as present`;
    expect(tables[0]?.present).toBe(true);
  });

  it('SQL as a status, a payment method or a type is kept verbatim in a quarantined or rejected row', async () => {
    for (const injection of injections) {
      const id = (nextId += 1);
      const raw = JSON.stringify({ ...postbackBody({ id, status: 'PAGO' }), status: injection });
      const answer = await answerOf(raw, 'postback');
      expect(answer?.status).toBe('quarantined');
      const [row] = await sql()`
        select payload->>'status' as status, convert_from(raw_body, 'UTF8') as raw
          from inbox_events where id = ${(answer as { id: number }).id}`;
      expect(row).toEqual({ status: injection, raw });
      const webhook = await send({
        path: `/webhooks/${WEBHOOK_TOKEN}`,
        headers: [['Content-Type', 'application/json']],
        body: Buffer.from(
          JSON.stringify({ ...webhookSaleBody({ id, status: 'PAGO' }), type: injection }),
        ),
      });
      expect(webhook.status).toBe(403);
    }
    await expectAlive();
  });
});

describe('rejected deliveries under attack', () => {
  it('an unknown webhook token is kept only as its sha256, never in clear', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[A-Za-z0-9_-]{16,64}$/).filter((token) => token !== WEBHOOK_TOKEN),
        async (token) => {
          const answer = await send({
            path: `/webhooks/${token}`,
            headers: [['Content-Type', 'application/json']],
            body: Buffer.from(JSON.stringify(webhookSaleBody({ id: 1, status: 'PAGO' }))),
          });
          expect(answer.status).toBe(404);
          const sha = createHash('sha256').update(token).digest('hex');
          const rows = await waitFor(async () => {
            const found = await sql()<{ everything: string }[]>`
              select row_to_json(r)::text as everything from rejected_deliveries r
               where token_sha256 = ${sha}`;
            return found.length > 0 ? found : undefined;
          });
          for (const row of rows) expect(row.everything).not.toContain(token);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('a flood of rejections is trimmed to the configured row count', async () => {
    const marker = `flood-${Date.now()}`;
    const flood = Array.from({ length: 60 }, (_, i) =>
      send({
        path: '/postbacks',
        headers: [
          ['Content-Type', 'application/json'],
          ['X-Signature', '0'.repeat(64)],
          ['X-Hostile-Run', marker],
        ],
        body: Buffer.from(`{"flood":${i}}`),
      }),
    );
    for (const answer of await Promise.all(flood)) expect(answer.status).toBe(401);
    // Rejections are kept on the side: wait for all sixty before trimming.
    await waitFor(async () => {
      const [kept] = await sql()<{ n: number }[]>`
        select count(*)::int as n from rejected_deliveries where headers->>'x-hostile-run' = ${marker}`;
      return kept?.n === 60;
    });
    await trimRejected(sql(), { maxRows: 25, maxAgeDays: 7 });
    const [count] = await sql()<
      { n: number }[]
    >`select count(*)::int as n from rejected_deliveries`;
    expect(count?.n).toBeLessThanOrEqual(25);
  });
});

describe('authentic bodies the worker must apply or quarantine, never fail on', () => {
  const deepJson = '['.repeat(5000) + ']'.repeat(5000);
  const cases: [string, 'postback' | 'webhook', (id: number) => Record<string, unknown>][] = [
    [
      'shipping: a JSON string nested 5000 deep',
      'postback',
      (id) => ({
        ...postbackBody({ id, status: 'PAGO' }),
        shipping: deepJson,
      }),
    ],
    [
      'shipping: a JSON string holding a lone surrogate',
      'postback',
      (id) => ({
        ...postbackBody({ id, status: 'PAGO' }),
        shipping: '{"a":"\\ud800"}',
      }),
    ],
    [
      'shipping: a JSON string holding U+0000',
      'postback',
      (id) => ({
        ...postbackBody({ id, status: 'PAGO' }),
        shipping: '{"a":"\\u0000"}',
      }),
    ],
    [
      'shipping: an object nested 100 deep',
      'postback',
      (id) => ({
        ...postbackBody({ id, status: 'PAGO' }),
        shipping: { a: JSON.parse('['.repeat(100) + ']'.repeat(100)) as unknown },
      }),
    ],
    [
      'a sale date before the first day Postgres can store',
      'postback',
      (id) => ({
        ...postbackBody({ id, status: 'PAGO' }),
        date: '-271821-04-20T00:00:00.000Z',
      }),
    ],
    [
      'a sale date after the last day JavaScript can hold',
      'postback',
      (id) => ({
        ...postbackBody({ id, status: 'PAGO' }),
        date: '+275760-09-13T00:00:00.000Z',
      }),
    ],
    [
      'a withdrawal updatedAt before the first day Postgres can store',
      'webhook',
      (id) =>
        withdrawalBody({ id, status: 'PROCESSING', updatedAt: '-271821-04-20T00:00:00.000Z' }),
    ],
    [
      '400 items of the largest quantity and price',
      'postback',
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

  it.each(cases)('%s', async (_name, channel, body) => {
    const id = (nextId += 1);
    const answer = await answerOf(JSON.stringify(body(id)), channel);
    if (answer === null) throw new Error('the body is JSON: it cannot be a 400');
    if (answer.status !== 'quarantined') {
      const row = await finished(answer.id);
      const [detail] = await sql()`select last_error from inbox_events where id = ${answer.id}`;
      expect(row.state, `${row.outcome}: ${String(detail?.last_error)}`).not.toBe('failed');
    }
    await expectAlive();
  });
});

// ---------------------------------------------------------------------------------------------
// Slow clients. Needs HEADERS_TIMEOUT_MS / REQUEST_TIMEOUT_MS wired into the HTTP server (and a
// connectionsCheckingInterval below them): until then the server keeps 10 s / 30 s, checked
// every 30 s, and these would wait half a minute.

/** Opens a connection, writes `head`, then one byte of `trickle` every `everyMs` until closed. */
function trickle(head: Buffer, drip: Buffer, everyMs: number): Promise<RawAnswer> {
  return rawExchange(
    (socket) => {
      socket.write(head);
      let sent = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || socket.writableEnded || sent >= drip.length) {
          clearInterval(timer);
          return;
        }
        socket.write(drip.subarray(sent, sent + 1));
        sent += 1;
      }, everyMs);
      socket.on('close', () => clearInterval(timer));
    },
    { timeoutMs: 20_000 },
  );
}

describe('slow clients', () => {
  it('headers trickled one byte per 100 ms are cut off at HEADERS_TIMEOUT_MS', async () => {
    const answer = await trickle(
      Buffer.from('POST /postbacks HTTP/1.1\r\nHost: 127.0.0.1\r\n'),
      Buffer.from(`X-Slow: ${'a'.repeat(400)}\r\n\r\n`),
      100,
    );
    expect(answer.error).not.toBe('client timeout');
    expect(answer.status).toBe(408); // Node's own answer to a request timeout
    // 1 s of timeout, checked at least every second, and some slack for a loaded machine.
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(900);
    expect(answer.elapsedMs).toBeLessThan(6000);
    await expectAlive();
  });

  it('a signed body trickled one byte per 100 ms is cut off at REQUEST_TIMEOUT_MS and never stored', async () => {
    const before = await inboxCount();
    const body = Buffer.from(JSON.stringify(postbackBody({ id: 777_001, status: 'PAGO' })));
    const head = Buffer.from(
      'POST /postbacks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `X-Signature: ${sign(body)}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const answer = await trickle(head, body, 100);
    expect(answer.error).not.toBe('client timeout');
    expect(answer.status).toBe(408);
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(1800);
    expect(answer.elapsedMs).toBeLessThan(8000);
    expect(await inboxCount()).toBe(before);
    await expectAlive();
  });

  it('many slow connections at once do not stop the server from answering', async () => {
    const slow = Array.from({ length: 50 }, () =>
      trickle(Buffer.from('POST /postbacks HTTP/1.1\r\n'), Buffer.from('X'.repeat(1000)), 200),
    );
    const raw = JSON.stringify(postbackBody({ id: 881_001, status: 'PAGO' }));
    const answer = await send({
      path: '/postbacks',
      headers: [
        ['Content-Type', 'application/json'],
        ['X-Signature', sign(raw)],
      ],
      body: Buffer.from(raw),
    });
    expect(answer.status).toBe(200);
    const cut = await Promise.all(slow);
    for (const one of cut) expect(one.error).not.toBe('client timeout');
    await expectAlive();
  });
});

// ---------------------------------------------------------------------------------------------
// The per-source auth-failure limit, end to end. Needs AUTH_FAILURES_MAX and
// AUTH_FAILURES_WINDOW_SECONDS wired (config → createAuthFailureLimiter → ingest).

describe('auth-failure limit', () => {
  let limited: TestPaymirror;
  /** Marks this describe's requests in rejected_deliveries.headers (the fuzzing shares the table). */
  const run = `limiter-${Date.now()}`;
  const sendTo = (request: RawRequest) =>
    send(
      { ...request, headers: [...(request.headers ?? []), ['X-Hostile-Run', run]] },
      limited.url,
    );
  const badPostback = (localAddress: string): RawRequest => ({
    path: '/postbacks',
    headers: [
      ['Content-Type', 'application/json'],
      ['X-Signature', 'f'.repeat(64)],
    ],
    body: Buffer.from('{"id":1}'),
    localAddress,
  });
  /** Rejections kept for this describe's requests, by source address. */
  const kept = async (): Promise<Record<string, number>> => {
    const rows = await sql()<{ source_address: string; n: number }[]>`
      select source_address, count(*)::int as n from rejected_deliveries
       where headers->>'x-hostile-run' = ${run} group by source_address`;
    return Object.fromEntries(rows.map((row) => [row.source_address, row.n]));
  };

  // Its own prefix: the failure counts live in Redis, shared by every process of one prefix.
  const limiterQueue = createTestQueuePrefix();
  beforeAll(async () => {
    limited = await startTestPaymirror({
      db,
      queue: limiterQueue,
      roles: 'ingress',
      env: {
        AUTH_FAILURES_MAX: '5',
        AUTH_FAILURES_WINDOW_SECONDS: '60',
        WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32,127.0.0.2/32',
      },
    });
  });
  afterAll(async () => {
    await limited?.close();
    await limiterQueue.drop();
  });

  it('after 5 unauthenticated failures a source gets 429 with Retry-After; other sources and webhooks on the right token do not', async () => {
    for (let i = 0; i < 5; i += 1) {
      expect((await sendTo(badPostback('127.0.0.1'))).status).toBe(401);
    }
    const blocked = await sendTo(badPostback('127.0.0.1'));
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    const unknownToken = await sendTo({
      path: '/webhooks/not-the-token-0123456789',
      headers: [['Content-Type', 'application/json']],
      body: Buffer.from('{}'),
      localAddress: '127.0.0.1',
    });
    expect(unknownToken.status).toBe(429);

    // A postback from the blocked address is refused before its body is read, authentic or
    // not (telling would cost the CPU the limit exists to save); a webhook on the right token
    // is authenticated by its path, before any body, and still goes through.
    const raw = JSON.stringify(postbackBody({ id: 880_001, status: 'PAGO' }));
    const signed = await sendTo({
      path: '/postbacks',
      headers: [
        ['Content-Type', 'application/json'],
        ['X-Signature', sign(raw)],
      ],
      body: Buffer.from(raw),
      localAddress: '127.0.0.1',
    });
    expect(signed.status).toBe(429);
    const webhook = await sendTo({
      path: `/webhooks/${WEBHOOK_TOKEN}`,
      headers: [['Content-Type', 'application/json']],
      body: Buffer.from(JSON.stringify(webhookSaleBody({ id: 880_002, status: 'PAGO' }))),
      localAddress: '127.0.0.1',
    });
    expect(webhook.status).toBe(200);

    // Another source is counted on its own.
    expect((await sendTo(badPostback('127.0.0.2'))).status).toBe(401);
    // Rejections are kept on the side: wait for the other source's one, then the blocked
    // requests must have cost no row.
    await waitFor(async () => (await kept())['127.0.0.2'] === 1, { what: 'rejection kept' });
    expect(await kept()).toEqual({ '127.0.0.1': 5, '127.0.0.2': 1 });
  });

  it('a blocked source gets its 429 before a byte of its body is read', async () => {
    for (let i = 0; i < 5; i += 1) {
      expect((await sendTo(badPostback('127.0.0.4'))).status).toBe(401);
    }
    const { port } = new URL(limited.url);
    const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: '127.0.0.4' });
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        let text = '';
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('latin1');
          if (text.includes('\r\n\r\n')) resolve(text);
        });
        socket.on('error', reject);
        // A 64 KiB body announced, 10 bytes sent, the rest never: only an answer that does
        // not wait for the body arrives.
        socket.write(
          'POST /postbacks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
            `X-Signature: ${'f'.repeat(64)}\r\nX-Hostile-Run: ${run}\r\n` +
            'Content-Length: 65536\r\n\r\n{"id":1,"a',
        );
      });
      expect(answer).toMatch(/^HTTP\/1\.1 429 /);
      expect(answer.toLowerCase()).toContain('connection: close');
    } finally {
      socket.destroy();
    }
  });

  it('403 for a source outside the allowlist counts too', async () => {
    const fromOutside = (): RawRequest => ({
      path: `/webhooks/${WEBHOOK_TOKEN}`,
      headers: [['Content-Type', 'application/json']],
      body: Buffer.from(JSON.stringify(webhookSaleBody({ id: 880_003, status: 'PAGO' }))),
      localAddress: '127.0.0.3',
    });
    for (let i = 0; i < 5; i += 1) expect((await sendTo(fromOutside())).status).toBe(403);
    const blocked = await sendTo(fromOutside());
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
  });
});
