/**
 * The gateway's tables (docs/gateway.md) written as strict zod schemas,
 * independently of the sandbox's own types: a field the spec does not list fails, a
 * required field missing fails, a wrong unit (number vs string, centavos vs reais) fails.
 */
import { z } from 'zod';

const iso = z.iso.datetime({ offset: true });
const integer = z.number().int();
/** Centavos as a string (docs/gateway.md 1.6): digits only. */
const centsString = z.string().regex(/^[0-9]+$/);
/** Centavos as a number: a non-negative integer. */
const centsNumber = z.number().int().nonnegative();
/** Reais as a decimal string: "150.5" or "150.50", never more than 2 decimals. */
const reaisString = z.string().regex(/^[0-9]+(?:\.[0-9]{1,2})?$/);

export const transactionStatus = z.enum([
  'PENDENTE',
  'PAGO',
  'CANCELADO',
  'RECUSADO',
  'ESTORNADO',
  'FALHA',
  'EM_PROCESSAMENTO',
  'CHARGEBACK',
  'MED',
]);
const saleMethod = z.enum(['PIX', 'CREDIT_CARD', 'DEBIT_CARD', 'BOLETO']);
const pixKeyType = z.enum(['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'RANDOM']);

// 2.1
const withdrawalShape = {
  id: integer,
  amount: reaisString,
  netAmount: reaisString,
  pixKey: z.string(),
  pixKeyType,
  status: z.enum(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED']),
  createdAt: iso,
  fees: z.strictObject({ fixed: reaisString, variable: reaisString, total: reaisString }),
};
export const withdrawalCreatedSchema = z.strictObject(withdrawalShape);
export const withdrawalReadSchema = z.strictObject({ ...withdrawalShape, updatedAt: iso });

// 2.2
export const transactionReadSchema = z.strictObject({
  id: integer,
  status: transactionStatus,
  amount: centsNumber,
  netAmount: centsNumber.optional(),
  systemFee: centsNumber.optional(),
  reserveAmount: centsNumber.optional(),
  paymentMethod: z.enum(['CREDIT_CARD', 'DEBIT_CARD', 'BOLETO', 'PIX', 'TRANSFER']),
  date: iso,
  completedAt: iso.nullable().optional(),
  customer: z.strictObject({
    name: z.string(),
    email: z.string(),
    document: z.string().optional(),
    phone: z.string().optional(),
  }),
  items: z.array(
    z.strictObject({
      id: integer,
      title: z.string(),
      unitPrice: centsNumber,
      quantity: integer,
      tangible: z.boolean(),
    }),
  ),
  pixKey: z.string().nullable().optional(),
  cardLastFour: z.string().nullable().optional(),
  cardBrand: z.string().nullable().optional(),
  boletoCode: z.string().nullable().optional(),
  externalTransactionId: z.string().optional(),
  installments: integer.optional(),
  shipping: z.record(z.string(), z.unknown()).optional(),
});

// 2.3
export const saleCreatedSchema = z.strictObject({
  message: z.string(),
  sale: z.strictObject({
    id: integer,
    amount: centsString,
    status: transactionStatus,
    paymentMethod: saleMethod,
    customer: z.strictObject({
      name: z.string(),
      email: z.string(),
      document: z
        .string()
        .regex(/^(?:[0-9]{11}|[0-9]{14})$/)
        .optional(),
      phone: z
        .string()
        .regex(/^[0-9]+$/)
        .optional(),
    }),
    payment: z.strictObject({
      method: saleMethod,
      installments: integer.nullable().optional(),
      pix: z
        .strictObject({
          key: z.string().optional(),
          qrCodeBase64: z.string().startsWith('data:image/png;base64,').optional(),
          expiresAt: iso.nullable().optional(),
        })
        .optional(),
    }),
    shipping: z.string().nullable().optional(),
    createdAt: iso,
  }),
});

// 2.4
export const errorShapeA = z.strictObject({
  message: z.string(),
  errorType: z
    .enum([
      'INSUFFICIENT_BALANCE',
      'API_WITHDRAWAL_DISABLED_GLOBALLY',
      'TRANSFER_NOT_ALLOWED',
      'MINIMUM_VALUE',
      'MAXIMUM_VALUE',
      'GENERAL_ERROR',
    ])
    .optional(),
});
export const errorShapeB = z.strictObject({ message: z.string(), error: z.string() });
export const errorShapeC = z.strictObject({
  success: z.literal(false),
  error: z.strictObject({ code: z.enum(['UNAUTHORIZED', 'FORBIDDEN']), message: z.string() }),
});

// 6.3
const transactionNotificationShape = {
  id: integer,
  userId: integer,
  amount: centsString,
  date: iso,
  status: transactionStatus,
  paymentMethod: saleMethod,
  customerDocument: z.string().optional(),
  customerEmail: z.string().optional(),
  customerName: z.string().optional(),
  customerPhone: z
    .string()
    .regex(/^[0-9]+$/)
    .optional(),
  pixKey: z.string().nullable().optional(),
  boletoCode: z.string().nullable().optional(),
  shipping: z.string().nullable().optional(),
  saleItems: z.array(
    z.strictObject({
      id: integer,
      saleId: integer,
      title: z.string(),
      unitPrice: centsString,
      quantity: integer,
      tangible: z.boolean(),
    }),
  ),
};
export const webhookTransactionSchema = z.strictObject({
  ...transactionNotificationShape,
  fee: centsNumber,
  transactionId: integer,
  type: z.literal('TRANSACTION'),
});
export const postbackTransactionSchema = z.strictObject({
  ...transactionNotificationShape,
  externalTransactionId: z.string(),
});

// 6.5
export const withdrawalNotificationSchema = z.strictObject({
  id: integer,
  userId: integer,
  amount: reaisString,
  pixKey: z.string().nullable(),
  pixKeyType: pixKeyType.nullable(),
  status: z.enum(['PENDING', 'PROCESSING', 'COMPLETED', 'CANCELLED', 'REJECTED']),
  externalId: z.string().nullable(),
  createdAt: iso,
  updatedAt: iso,
  processedAt: iso.nullable(),
  user: z.strictObject({ id: integer, name: z.string(), email: z.string() }),
  type: z.literal('WITHDRAWAL'),
});

/** Key order of the tables in docs/gateway.md 6.3, per channel. */
const COMMON_KEYS = [
  'id',
  'userId',
  'amount',
  'date',
  'status',
  'paymentMethod',
  'customerDocument',
  'customerEmail',
  'customerName',
  'customerPhone',
  'pixKey',
  'boletoCode',
  'shipping',
  'saleItems',
];
export const WEBHOOK_TRANSACTION_KEYS = [...COMMON_KEYS, 'fee', 'transactionId', 'type'];
export const POSTBACK_TRANSACTION_KEYS = [...COMMON_KEYS, 'externalTransactionId'];

/** Parses EMV "ID LL VALUE" fields (BR Code). */
export function parseEmvFields(payload: string): Map<string, string> {
  const fields = new Map<string, string>();
  let at = 0;
  while (at < payload.length) {
    const id = payload.slice(at, at + 2);
    const length = Number(payload.slice(at + 2, at + 4));
    if (!/^[0-9]{2}$/.test(id) || !Number.isInteger(length))
      throw new Error(`bad EMV field at ${at}`);
    fields.set(id, payload.slice(at + 4, at + 4 + length));
    at += 4 + length;
  }
  if (at !== payload.length) throw new Error('EMV payload overruns');
  return fields;
}
