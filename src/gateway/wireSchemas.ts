import { z } from 'zod';
import { isIsoInstant, ISO_INSTANT_MESSAGE } from '../domain/isoInstant.js';
import { PAYMENT_METHODS, SALE_STATUSES } from '../domain/saleMachine.js';
import { WITHDRAWAL_STATUSES } from '../domain/withdrawalMachine.js';

/**
 * The gateway's answers as they travel (docs/gateway.md 2.1–2.4), before any unit is converted
 * (toDomain.ts does that). Strict where paymirror depends on a value (ids, statuses, amounts,
 * dates), loose where the spec is loose (optional fields, nulls). Unknown keys are dropped.
 */

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const optionalText = z.string().nullish();
const isoDate = z.string().refine(isIsoInstant, ISO_INSTANT_MESSAGE);

/** docs/gateway.md 2.1: amounts are decimal strings of reais. */
export const withdrawalWire = z.object({
  id,
  amount: z.string(),
  netAmount: z.string(),
  pixKey: z.string(),
  pixKeyType: z.string(),
  status: z.enum(WITHDRAWAL_STATUSES),
  createdAt: isoDate,
  updatedAt: isoDate.nullish(),
  fees: z.object({
    fixed: z.string(),
    variable: z.string(),
    total: z.string(),
  }),
});

/** docs/gateway.md 2.2: the read form carries NUMBERS of centavos. */
export const transactionWire = z.object({
  id,
  status: z.enum(SALE_STATUSES),
  amount: z.number(),
  netAmount: z.number().nullish(),
  systemFee: z.number().nullish(),
  reserveAmount: z.number().nullish(),
  paymentMethod: z.enum(PAYMENT_METHODS),
  date: isoDate,
  completedAt: isoDate.nullish(),
  customer: z
    .object({
      name: optionalText,
      email: optionalText,
      document: optionalText,
      phone: optionalText,
    })
    .nullish(),
  items: z.array(
    z.object({
      id: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
      title: z.string(),
      unitPrice: z.number(),
      quantity: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
      tangible: z.boolean(),
    }),
  ),
  pixKey: optionalText,
  cardLastFour: optionalText,
  cardBrand: optionalText,
  boletoCode: optionalText,
  externalTransactionId: optionalText,
  installments: z.number().int().nonnegative().nullish(),
  shipping: z.unknown().optional(),
});

/** docs/gateway.md 2.3: sale.amount is a STRING of centavos; sale.shipping a JSON string. */
export const createdSaleWire = z.object({
  message: z.string(),
  sale: z.object({
    id,
    amount: z.string(),
    status: z.enum(SALE_STATUSES),
    paymentMethod: z.enum(PAYMENT_METHODS),
    customer: z.object({
      name: z.string(),
      email: z.string(),
      document: optionalText,
      phone: optionalText,
    }),
    payment: z.object({
      method: z.string(),
      installments: z.number().int().nonnegative().nullish(),
      pix: z
        .object({
          key: optionalText,
          qrCodeBase64: optionalText,
          expiresAt: isoDate.nullish(),
        })
        .nullish(),
    }),
    shipping: z.string().nullish(),
    createdAt: isoDate,
  }),
});

/** docs/gateway.md 2.4, shape A: cashout business errors. */
export const errorShapeA = z.object({ message: z.string(), errorType: z.string().optional() });
/** docs/gateway.md 2.4, shape B: `message` plus an `error` description. */
export const errorShapeB = z.object({ message: z.string(), error: z.string() });
/** docs/gateway.md 2.4, shape C: authentication errors. */
export const errorShapeC = z.object({
  success: z.literal(false),
  error: z.object({ code: z.string(), message: z.string() }),
});

export type WithdrawalWire = z.infer<typeof withdrawalWire>;
export type TransactionWire = z.infer<typeof transactionWire>;
export type CreatedSaleWire = z.infer<typeof createdSaleWire>;
