import { z } from 'zod';

/**
 * The gateway's notification bodies as they travel (docs/gateway.md 6.3 and 6.5), before any unit
 * is converted. Loose where the spec is loose (optional fields, nulls), strict where paymirror
 * depends on a value: an id, a status, an amount.
 */

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const optionalText = z.string().nullish();
/**
 * Years 0001–9999: what Postgres timestamptz reads back from Date#toISOString (a year past 9999
 * is written "+010000-…", which Postgres refuses; year 0 does not exist there).
 */
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
/** ISO 8601 with a time and an offset (Z or ±hh:mm): a date without one is a guess at a zone. */
const ISO_WITH_OFFSET =
  /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:?[0-9]{2})$/;
const isoDate = z.string().refine((value) => {
  if (!ISO_WITH_OFFSET.test(value)) return false;
  const instant = Date.parse(value);
  return instant >= FIRST_INSTANT && instant <= LAST_INSTANT;
}, 'not an ISO 8601 date and time with an offset (Z or ±hh:mm) between the years 1 and 9999');

/** userId is compared as an integer: 42 and "42" are the same seller. */
export const userIdSchema = z.union([
  id,
  z
    .string()
    .regex(/^[0-9]{1,15}$/)
    .transform(Number),
]);

export const saleItemWire = z.object({
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
