import { createHmac } from 'node:crypto';

/** The secret the bench servers are started with; a bench-only value, never a real one. */
export const BENCH_POSTBACK_SECRET = 'bench-postback-secret-0123456789abcdef';
export const BENCH_WEBHOOK_TOKEN = 'bench-webhook-token-0123456789abcdef';
export const BENCH_SELLER_USER_ID = 7001;

const SHIPPING = JSON.stringify({
  street: 'Rua das Acácias',
  number: '1234',
  complement: 'Apto 56, Bloco B',
  neighborhood: 'Jardim Paulista',
  city: 'São Paulo',
  state: 'SP',
  zipCode: '01415-001',
  country: 'BR',
  fee: 2490,
});

const ITEMS = [
  { title: 'Camiseta Algodão Orgânico Estampada - Tamanho M - Azul Marinho', unitPrice: 8990 },
  { title: 'Caneca de Cerâmica Esmaltada 350 ml - Edição Limitada', unitPrice: 4590 },
  {
    title: 'Curso Online: Finanças Pessoais para Pequenos Negócios (acesso 12 meses)',
    unitPrice: 19700,
  },
  { title: 'Adesivos Vinílicos à Prova d’Água - Kit com 12 unidades', unitPrice: 2490 },
] as const;

/**
 * A postback as the gateway sends it (docs/gateway.md 6.3: the common fields, then
 * externalTransactionId), compact JSON, about 1.5 KB. Each sale id makes a distinct event.
 */
export function postbackBody(saleId: number): string {
  const amount = ITEMS.reduce((sum, item) => sum + item.unitPrice, 0);
  return JSON.stringify({
    id: saleId,
    userId: BENCH_SELLER_USER_ID,
    amount: String(amount),
    date: '2026-11-20T13:45:12.000Z',
    status: 'PAGO',
    paymentMethod: 'PIX',
    customerDocument: '12345678909',
    customerEmail: 'maria.aparecida.silva@example.com.br',
    customerName: 'Maria Aparecida da Silva Santos',
    customerPhone: '5511998877665',
    pixKey: `00020101021226880014br.gov.bcb.pix2566qrcodes.example.com.br/v2/cob/${saleId}a1b2c3d4e5f6071829304152637485960520400005303986540${amount}5802BR5913LOJA EXEMPLO6009SAO PAULO62070503***6304ABCD`,
    boletoCode: null,
    shipping: SHIPPING,
    saleItems: ITEMS.map((item, index) => ({
      id: saleId * 10 + index,
      saleId,
      title: item.title,
      unitPrice: String(item.unitPrice),
      quantity: 1,
      tangible: index !== 2,
    })),
    externalTransactionId: `pedido-${saleId}-e3b0c44298fc1c149afbf4c8996fb924`,
  });
}

function signBody(body: string, secret = BENCH_POSTBACK_SECRET): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** Ready-to-send headers for one postback body. */
export function postbackHeaders(body: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-signature': signBody(body) };
}

/** Sale ids the load generators use: always nine digits, so every request has one length. */
export const FIRST_SALE_ID = 100_000_000;
const LAST_SALE_ID = 999_999_999;

/**
 * A whole HTTP request for postbacks, built once; `fill(id)` writes another sale id into it
 * and signs the new body in place: the cheap way to send a distinct signed body every time.
 */
export interface PostbackRequestTemplate {
  readonly bytes: Buffer;
  fill(saleId: number): Buffer;
}

export function postbackRequestTemplate(host: string): PostbackRequestTemplate {
  const templateId = 987_654_321;
  const body = Buffer.from(postbackBody(templateId), 'utf8');
  const head = Buffer.from(
    `POST /postbacks HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
      `X-Signature: ${'0'.repeat(64)}\r\nContent-Length: ${body.length}\r\n\r\n`,
    'latin1',
  );
  const bytes = Buffer.concat([head, body]);
  const signatureAt = head.indexOf('X-Signature: ') + 'X-Signature: '.length;
  const idText = String(templateId);
  const idOffsets: number[] = [];
  // Item ids are saleId * 10 + n: their first nine digits are the sale id and are patched too.
  for (let at = body.indexOf(idText); at >= 0; at = body.indexOf(idText, at + idText.length)) {
    idOffsets.push(head.length + at);
  }
  return {
    bytes,
    fill(saleId) {
      if (saleId < FIRST_SALE_ID || saleId > LAST_SALE_ID) {
        throw new RangeError(`sale id ${saleId} is not nine digits`);
      }
      const digits = String(saleId);
      for (const offset of idOffsets) bytes.write(digits, offset, 'latin1');
      const signature = createHmac('sha256', BENCH_POSTBACK_SECRET)
        .update(bytes.subarray(head.length))
        .digest('hex');
      bytes.write(signature, signatureAt, 'latin1');
      return bytes;
    },
  };
}
