import { z } from 'zod';
import { isIsoInstant, ISO_INSTANT_MESSAGE } from '../domain/isoInstant.js';

/**
 * The gateway's notification bodies as they travel (docs/gateway.md 6.3 and 6.5), before any unit
 * is converted. Loose where the spec is loose (optional fields, nulls), strict where paymirror
 * depends on a value: an id, a status, an amount.
 */

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const optionalText = z.string().nullish();
const isoDate = z.string().refine(isIsoInstant, ISO_INSTANT_MESSAGE);

/** userId is compared as an integer: 42 and "42" are the same seller. */
export const userIdSchema = z.union([
  id,
  z
    .string()
    .regex(/^[0-9]{1,15}$/)
    .transform(Number),
]);

const saleItemWire = z.object({
  id,
  saleId: id,
  title: z.string(),
  unitPrice: z.string(),
  quantity: z.number().int().min(0).max(1_000_000),
  tangible: z.boolean(),
});

/** docs/gateway.md 6.3: the fields both channels carry; the webhook's own are checked below. */
const saleNotificationFields = z.object({
  id,
  userId: userIdSchema,
  amount: z.string(),
  date: isoDate,
  status: z.string(),
  paymentMethod: z.string(),
  customerDocument: optionalText,
  customerEmail: optionalText,
  customerName: optionalText,
  customerPhone: optionalText,
  pixKey: optionalText,
  boletoCode: optionalText,
  shipping: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  saleItems: z.array(saleItemWire).max(1000),
  fee: z.number().optional(),
  transactionId: id.optional(),
  type: z.literal('TRANSACTION').optional(),
  externalTransactionId: optionalText,
});

export const saleNotificationWire = saleNotificationFields.superRefine((sale, ctx) => {
  sale.saleItems.forEach((item, index) => {
    if (item.saleId !== sale.id) {
      ctx.addIssue({
        code: 'custom',
        path: ['saleItems', index, 'saleId'],
        message: `must equal the sale's id ${sale.id}`,
      });
    }
  });
});

/** The permanent webhook's sale form adds `fee`, `transactionId` (the sale's id) and `type`. */
export const saleWebhookWire = saleNotificationWire.superRefine((sale, ctx) => {
  if (sale.fee === undefined) {
    ctx.addIssue({ code: 'custom', path: ['fee'], message: 'required on webhooks' });
  }
  if (sale.transactionId !== sale.id) {
    ctx.addIssue({
      code: 'custom',
      path: ['transactionId'],
      message: `required on webhooks and equal to id ${sale.id}`,
    });
  }
});

export const withdrawalNotificationWire = z.object({
  id,
  userId: userIdSchema,
  amount: z.string(),
  pixKey: optionalText,
  pixKeyType: optionalText,
  status: z.string(),
  externalId: optionalText,
  createdAt: isoDate.optional(),
  updatedAt: isoDate,
  processedAt: isoDate.nullish(),
  type: z.literal('WITHDRAWAL'),
});

export type SaleNotificationWire = z.infer<typeof saleNotificationWire>;
export type WithdrawalNotificationWire = z.infer<typeof withdrawalNotificationWire>;
