/**
 * Starts a sandbox on a free port with fresh keys and gives the test a small API client.
 */
import { createSandbox, generateKeyPair } from '../../../src/sandbox/index.js';
import type { KeyPair, Sandbox, SandboxOptions } from '../../../src/sandbox/index.js';

export const TEST_USER_ID = 42;
export const TEST_POSTBACK_SECRET = 'test-postback-secret';

export type KeyMode = 'valid' | 'missing' | 'wrong' | 'public-only' | 'swapped';

export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Headers;
}

export interface CallOptions {
  readonly body?: unknown;
  readonly rawBody?: string;
  readonly keys?: KeyMode;
}

export interface Harness {
  readonly sandbox: Sandbox;
  readonly url: string;
  readonly keys: KeyPair;
  call(method: string, path: string, options?: CallOptions): Promise<ApiAnswer>;
  control(path: string, body?: unknown): Promise<ApiAnswer>;
  createSale(body: Record<string, unknown>): Promise<{ id: number; answer: ApiAnswer }>;
  moveSale(id: number, status: string): Promise<ApiAnswer>;
  moveWithdrawal(id: number, status: string): Promise<ApiAnswer>;
  close(): Promise<void>;
}

function keyHeaders(keys: KeyPair, mode: KeyMode): Record<string, string> {
  switch (mode) {
    case 'valid':
      return { 'X-Api-Public-Key': keys.publicKey, 'X-Api-Private-Key': keys.privateKey };
    case 'missing':
      return {};
    case 'wrong':
      return { 'X-Api-Public-Key': keys.publicKey, 'X-Api-Private-Key': `${keys.privateKey}x` };
    case 'public-only':
      return { 'X-Api-Public-Key': keys.publicKey };
    case 'swapped':
      return { 'X-Api-Public-Key': keys.privateKey, 'X-Api-Private-Key': keys.publicKey };
  }
}

export async function startHarness(overrides: Partial<SandboxOptions> = {}): Promise<Harness> {
  const keys = generateKeyPair();
  const sandbox = createSandbox({
    ...keys,
    postbackSecret: TEST_POSTBACK_SECRET,
    userId: TEST_USER_ID,
    retryBaseMs: 5,
    ...overrides,
  });
  const { url } = await sandbox.listen(0);

  async function call(method: string, path: string, options: CallOptions = {}): Promise<ApiAnswer> {
    const hasBody = options.body !== undefined || options.rawBody !== undefined;
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        ...keyHeaders(keys, options.keys ?? 'valid'),
        ...(hasBody ? { 'Content-Type': 'application/json' } : {}),
      },
      body:
        options.rawBody ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? null : (JSON.parse(text) as unknown),
      headers: response.headers,
    };
  }

  const control = (path: string, body: unknown = {}) =>
    call('POST', `/_sandbox${path}`, { body, keys: 'missing' });

  return {
    sandbox,
    url,
    keys,
    call,
    control,
    async createSale(body) {
      const answer = await call('POST', '/api/sales', { body });
      if (answer.status !== 201)
        throw new Error(`sale creation failed: ${answer.status} ${JSON.stringify(answer.body)}`);
      return { id: (answer.body as { sale: { id: number } }).sale.id, answer };
    },
    moveSale: (id, status) => control(`/sales/${id}/status`, { status }),
    moveWithdrawal: (id, status) => control(`/withdrawals/${id}/status`, { status }),
    close: () => sandbox.close(),
  };
}

export function saleBody(
  paymentMethod: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    amount: 15050,
    paymentMethod,
    customer: {
      name: 'Maria Silva',
      email: 'maria@example.com',
      document: '12345678909',
      phone: '11987654321',
    },
    items: [
      { title: 'Curso online', unitPrice: 10000, quantity: 1, tangible: false },
      { title: 'Apostila', unitPrice: 2525, quantity: 2, tangible: false },
    ],
    ...(paymentMethod === 'CREDIT_CARD'
      ? { installments: 3, card: { number: '4111111111111111', brand: 'VISA' } }
      : {}),
    ...(paymentMethod === 'DEBIT_CARD' ? { card: { lastFour: '5678', brand: 'MASTERCARD' } } : {}),
    ...overrides,
  };
}

/** Polls until the condition holds, or fails after the deadline. */
export async function waitFor(
  condition: () => boolean,
  what: string,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** mulberry32: a small seeded generator, so fault decisions repeat from run to run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
