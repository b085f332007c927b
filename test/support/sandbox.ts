import { createSandbox, generateKeyPair, type Sandbox } from '../../src/sandbox/index.js';
import { POSTBACK_SECRET, SELLER_USER_ID } from './fixtures.js';

export interface TestSandbox {
  readonly sandbox: Sandbox;
  readonly url: string;
  readonly publicKey: string;
  readonly privateKey: string;
  /** The env that points paymirror at this sandbox. */
  readonly env: Record<string, string>;
  api(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  control(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  createSale(fields: {
    amount: number;
    paymentMethod?: string;
    postbackUrl?: string;
  }): Promise<number>;
  close(): Promise<void>;
}

/** The sandbox gateway on a free port, with fast notification retries for tests. */
export async function startTestSandbox(
  options: { webhookUrl?: string | null; initialBalanceCents?: number } = {},
): Promise<TestSandbox> {
  const keys = generateKeyPair();
  const sandbox = createSandbox({
    ...keys,
    postbackSecret: POSTBACK_SECRET,
    webhookUrl: options.webhookUrl ?? null,
    userId: SELLER_USER_ID,
    retryBaseMs: 20,
    ...(options.initialBalanceCents === undefined
      ? {}
      : { initialBalanceCents: options.initialBalanceCents }),
  });
  const { url } = await sandbox.listen(0);
  const call = async (
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const keyHeaders = { 'x-api-public-key': keys.publicKey, 'x-api-private-key': keys.privateKey };
  return {
    sandbox,
    url,
    ...keys,
    env: {
      GATEWAY_BASE_URL: url,
      GATEWAY_PUBLIC_KEY: keys.publicKey,
      GATEWAY_PRIVATE_KEY: keys.privateKey,
    },
    api: (method, path, body) => call(method, path, body, keyHeaders),
    control: (path, body) => call('POST', `/_sandbox${path}`, body, {}),
    async createSale(fields) {
      const answer = await call(
        'POST',
        '/api/sales',
        {
          amount: fields.amount,
          paymentMethod: fields.paymentMethod ?? 'PIX',
          customer: { name: 'Maria da Silva', email: 'maria@example.com' },
          items: [{ title: 'Curso', unitPrice: fields.amount, quantity: 1, tangible: false }],
          ...(fields.postbackUrl ? { postbackUrl: fields.postbackUrl } : {}),
        },
        keyHeaders,
      );
      if (answer.status !== 201)
        throw new Error(`sandbox refused the sale: ${JSON.stringify(answer.body)}`);
      return (answer.body.sale as { id: number }).id;
    },
    close: () => sandbox.close(),
  };
}
