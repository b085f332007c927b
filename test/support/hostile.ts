import { connect, type Socket } from 'node:net';
import fc from 'fast-check';
import { beforeEach, expect } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { userIdSchema } from '../../src/notifications/wireSchemas.js';
import { sellerOf } from '../../src/ingress/sellerCheck.js';
import { SELLER_USER_ID, WEBHOOK_TOKEN, sign } from './fixtures.js';
import { inboxRowFinished } from './paymirror.js';
import { useTestApp, type TestApp } from './testApp.js';

// Hostile input through real HTTP (raw sockets, so every byte is ours), against the real
// Postgres and Redis (test/integration/hostile/): never a crash, never a 5xx, only answers of
// docs/receiving.md (plus 429 from the auth-failure limiter), never an inbox row from an
// unauthenticated request, never anything but integer centavos in a money column.

/** Error-level log lines of this file's paymirror: an "unexpected ingress failure" is a bug. */
export const errorLines: string[] = [];
let current: TestApp | null = null;

/** The paymirror every hostile-input file attacks: ingress and worker, its own database. */
export function useHostileApp(): TestApp {
  current = useTestApp({
    roles: 'ingress,worker',
    logger: createLogger({
      level: 'error',
      destination: { write: (line: string) => void errorLines.push(line) },
    }),
    env: () => ({
      BODY_LIMIT_BYTES: String(BODY_LIMIT),
      // A row the worker cannot apply ends `failed` after three quick attempts, not ten.
      JOB_ATTEMPTS: '3',
      // Fuzzing sends thousands of unauthenticated requests from 127.0.0.1: the limiter has its
      // own test below, here it must not hide the answers under 429s.
      AUTH_FAILURES_MAX: '1000000',
      // Small so the slow-client tests finish quickly (see "slow clients").
      HEADERS_TIMEOUT_MS: '1000',
      REQUEST_TIMEOUT_MS: '2000',
    }),
  });
  beforeEach(() => {
    errorLines.length = 0;
  });
  return current;
}

function hostile(): TestApp {
  if (!current) throw new Error('call useHostileApp() first');
  return current;
}

export const BODY_LIMIT = 65_536;
/** README's answers, plus 429 (per-source auth-failure limit); 503 only when storage is down. */
export const CONTRACT = [200, 400, 401, 403, 404, 413, 415, 429];
/** Node answers 431 itself when the request line and headers pass its 16 KiB limit. */
export const NODE_HEADER_LIMIT = 16 * 1024;
export const RUNS = 60;

// ---------------------------------------------------------------------------------------------
// A raw HTTP/1.1 client: undici refuses non-ASCII header values and normalises paths (`..`).

export interface RawRequest {
  readonly method?: string;
  /** Written as is (a string as UTF-8): no normalisation, no encoding. */
  readonly path: string | Buffer;
  readonly headers?: readonly (readonly [string, string | Buffer | undefined])[];
  readonly body?: Buffer;
  readonly localAddress?: string;
}

export interface RawAnswer {
  /** 0: the connection closed without an answer. */
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
  readonly error: string | null;
  readonly elapsedMs: number;
}

/** fast-check prints a Buffer byte by byte: show a short text instead. */
export function readable(bytes: Buffer): Buffer {
  const text = bytes.toString('latin1');
  const shown =
    text.length <= 160 ? text : `${text.slice(0, 100)}…${text.slice(-40)} (${bytes.length} bytes)`;
  return Object.assign(bytes, { [fc.toStringMethod]: () => `Buffer<${JSON.stringify(shown)}>` });
}

export function bytesOf(value: string | Buffer): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
}

export function requestBytes(request: RawRequest): Buffer {
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
export function rawExchange(
  write: (socket: Socket) => void,
  options: { baseUrl?: string; localAddress?: string; timeoutMs?: number } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(options.baseUrl ?? hostile().app.url);
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

export function parseAnswer(raw: Buffer, error: string | null, elapsedMs: number): RawAnswer {
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

export function send(request: RawRequest, baseUrl = hostile().app.url): Promise<RawAnswer> {
  const bytes = requestBytes(request);
  return rawExchange((socket) => socket.write(bytes), {
    baseUrl,
    ...(request.localAddress ? { localAddress: request.localAddress } : {}),
  });
}

export const sql = () => hostile().sql();

export async function inboxCount(): Promise<number> {
  const rows = await sql()<{ n: number }[]>`select count(*)::int as n from inbox_events`;
  return rows[0]?.n ?? -1;
}

export async function expectAlive(): Promise<void> {
  const health = await fetch(`${hostile().app.url}/healthz`);
  expect(health.status).toBe(200);
  expect(errorLines).toEqual([]);
}

export function headerBytes(request: RawRequest): number {
  const bytes = requestBytes(request);
  return bytes.indexOf('\r\n\r\n') + 4;
}

/** The answer is one of the contract's (431 only when Node's header limit was passed). */
export function expectContractStatus(
  request: RawRequest,
  answer: RawAnswer,
  allowed = CONTRACT,
): void {
  if (answer.status === 431 && headerBytes(request) > NODE_HEADER_LIMIT) return;
  expect(answer.error === null || answer.status !== 0, `no answer: ${answer.error}`).toBe(true);
  expect(allowed, `answered ${answer.status} ${answer.body.slice(0, 200)}`).toContain(
    answer.status,
  );
}

// ---------------------------------------------------------------------------------------------
// Generators.

/** JSON number literals and look-alikes that break naive parsers. */
export const NUMBER_LITERALS = [
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

export const numberLiteral = fc.constantFrom(...NUMBER_LITERALS);

/** A notification-shaped object whose fields are hostile literals. */
export const hostileNotification = fc
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

export const deeplyNested = fc
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

export const invalidUtf8 = fc
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

export const hugeBody = fc
  .integer({ min: BODY_LIMIT - 200, max: BODY_LIMIT + 5000 })
  .map((size) => {
    const head = `{"type":"TRANSACTION","userId":${SELLER_USER_ID},"id":7,"pad":"`;
    return Buffer.from(head + 'x'.repeat(Math.max(0, size - head.length - 2)) + '"}', 'utf8');
  });

export const anyBody: fc.Arbitrary<Buffer> = fc
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

export const JSON_CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/problem+json',
  'application/json;charset=latin1',
];

export const contentType: fc.Arbitrary<string | Buffer | undefined> = fc.oneof(
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
export const badSignature = (body: Buffer): fc.Arbitrary<string | Buffer | undefined> => {
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
export const badToken: fc.Arbitrary<string | Buffer> = fc
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
export function canBeTheToken(token: string | Buffer): boolean {
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

/** What the ingress answers an authentic-token webhook with this body. */
export function expectedWebhookStatus(body: Buffer): number {
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

/** A signed JSON object: 200 when its userId is ours, 400 when it has none, 403 another's. */
export function userIdAnswer(body: Buffer): number {
  const verdict = sellerOf(
    JSON.parse(body.toString('utf8')) as Record<string, unknown>,
    SELLER_USER_ID,
  );
  return verdict === 'ours' ? 200 : verdict === 'invalid' ? 400 : 403;
}

export function isJsonObject(body: Buffer): boolean {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Money: what reaches the mirror is integer centavos, exactly the amount sent, or nothing.

/** Sends a signed postback or an authentic webhook; null when the body is not JSON (400). */
export async function answerOf(
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

export function tryJson(raw: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

export function finished(inboxId: number): Promise<{ state: string; outcome: string | null }> {
  return inboxRowFinished(sql(), inboxId);
}

/** Centavos as the exact decimal text Postgres must hold, or null when the input is not money. */
export function centsOfCentsString(value: unknown): string | null {
  if (typeof value !== 'string' || !/^[0-9]+$/.test(value)) return null;
  const cents = BigInt(value);
  return cents <= BigInt(Number.MAX_SAFE_INTEGER) ? cents.toString() : null;
}

export function centsOfCentsNumber(value: unknown): string | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
    ? String(value === 0 ? 0 : value)
    : null;
}

export function centsOfReaisString(value: unknown): string | null {
  const match = typeof value === 'string' ? /^([0-9]+)(?:\.([0-9]{1,2}))?$/.exec(value) : null;
  if (!match) return null;
  const cents = BigInt(match[1] ?? '0') * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
  return cents <= BigInt(Number.MAX_SAFE_INTEGER) ? cents.toString() : null;
}

export const centsStringLiteral = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 64n }).map((n) => JSON.stringify(n.toString())),
  fc.nat({ max: 10_000_000 }).map((n) => JSON.stringify(String(n))),
  fc.nat({ max: 99 }).map((n) => JSON.stringify(`000${n}`)),
  numberLiteral,
);

export const centsNumberLiteral = fc.oneof(
  fc.nat({ max: 10_000_000 }).map(String),
  fc.constantFrom(
    String(Number.MAX_SAFE_INTEGER),
    `${Number.MAX_SAFE_INTEGER + 2}`,
    '150.0',
    '15e1',
  ),
  numberLiteral,
);

export const reaisLiteral = fc.oneof(
  fc
    .tuple(fc.bigInt({ min: 0n, max: 10n ** 17n }), fc.stringMatching(/^(\.[0-9]{0,3})?$/))
    .map(([whole, fraction]) => JSON.stringify(`${whole}${fraction}`)),
  fc.constantFrom('"150.5"', '"150.50"', '"0.01"', '".5"', '"5."', '"150,50"', '"1.5e2"', '150.5'),
  numberLiteral,
);

// ---------------------------------------------------------------------------------------------
// Slow clients. Needs HEADERS_TIMEOUT_MS / REQUEST_TIMEOUT_MS wired into the HTTP server (and a
// connectionsCheckingInterval below them): until then the server keeps 10 s / 30 s, checked
// every 30 s, and these would wait half a minute.

/**
 * Opens a connection, writes `head`, then one byte of `drip` every `everyMs` until the server
 * closes it; `dripped` says how many bytes of `drip` were written by then.
 */
export async function trickle(
  head: Buffer,
  drip: Buffer,
  everyMs: number,
  baseUrl?: string,
): Promise<RawAnswer & { readonly dripped: number }> {
  let sent = 0;
  const answer = await rawExchange(
    (socket) => {
      socket.write(head);
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
    { timeoutMs: 20_000, ...(baseUrl ? { baseUrl } : {}) },
  );
  return { ...answer, dripped: sent };
}
