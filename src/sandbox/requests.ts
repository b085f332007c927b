/**
 * zod schemas of every request body and path parameter the sandbox accepts.
 */
import { z } from 'zod';
import { centsFromReaisNumber, centsFromReaisString, MoneyError } from '../domain/money.js';
import { httpUrlSchema } from './options.js';
import {
  cashoutBlockSchema,
  isCardMethod,
  paymentMethodSchema,
  pixKeyTypeSchema,
  saleStatusSchema,
  withdrawalStatusSchema,
} from './domain/vocabulary.js';

const MAX_CENTS = Number.MAX_SAFE_INTEGER;
const centsAmount = z.number().int().positive().max(MAX_CENTS);

/** A path id: digits only, as a safe integer. "abc", "1.5" and "-1" fail. */
export const resourceIdSchema = z
  .string()
  .regex(/^[0-9]{1,15}$/, 'id must be a positive integer')
  .transform(Number);

const saleItemSchema = z.object({
  title: z.string().trim().min(1).max(200),
  unitPrice: z.number().int().nonnegative().max(MAX_CENTS),
  quantity: z.number().int().positive().max(1_000_000),
  tangible: z.boolean().default(false),
});

const cardSchema = z
  .object({
    number: z
      .string()
      .regex(/^[0-9]{13,19}$/, 'card.number: 13 to 19 digits')
      .optional(),
    lastFour: z
      .string()
      .regex(/^[0-9]{4}$/, 'card.lastFour: 4 digits')
      .optional(),
    brand: z
      .string()
      .trim()
      .toUpperCase()
      .regex(/^[A-Z][A-Z_]{1,19}$/, 'card.brand: a brand name like VISA'),
  })
  .refine((card) => (card.number === undefined) !== (card.lastFour === undefined), {
    message: 'card: give either number or lastFour',
  });

export const saleCreateRequestSchema = z
  .object({
    amount: centsAmount,
    paymentMethod: paymentMethodSchema,
    customer: z.object({
      name: z.string().trim().min(1).max(120),
      email: z.email(),
      document: z
        .string()
        .regex(/^(?:[0-9]{11}|[0-9]{14})$/, 'customer.document: CPF or CNPJ digits')
        .optional(),
      phone: z
        .string()
        .regex(/^[0-9]{8,15}$/, 'customer.phone: digits only')
        .optional(),
    }),
    items: z.array(saleItemSchema).min(1).max(100),
    postbackUrl: httpUrlSchema.optional(),
    installments: z.number().int().min(1).max(12).optional(),
    card: cardSchema.optional(),
    shipping: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .superRefine((sale, ctx) => {
    if (sale.installments !== undefined && sale.paymentMethod !== 'CREDIT_CARD') {
      ctx.addIssue({
        code: 'custom',
        path: ['installments'],
        message: 'installments apply to CREDIT_CARD only',
      });
    }
    if (sale.card !== undefined && !isCardMethod(sale.paymentMethod)) {
      ctx.addIssue({
        code: 'custom',
        path: ['card'],
        message: 'card applies to card payments only',
      });
    }
    if (sale.shipping && !sale.items.some((item) => item.tangible)) {
      ctx.addIssue({
        code: 'custom',
        path: ['shipping'],
        message: 'shipping applies to physical (tangible) items only',
      });
    }
  });
export type SaleCreateRequest = z.output<typeof saleCreateRequestSchema>;

export const cashoutRequestSchema = z.object({
  amount: z
    .number('amount must be a number')
    .positive('amount must be greater than zero')
    .transform((reais, ctx) => {
      try {
        return centsFromReaisNumber(reais);
      } catch (error) {
        if (!(error instanceof MoneyError)) throw error;
        ctx.issues.push({
          code: 'custom',
          message: 'amount must be reais with at most 2 decimal places',
          input: reais,
        });
        return z.NEVER;
      }
    }),
  pixKey: z
    .string('pixKey must be a string')
    .min(8, 'pixKey must have 8 to 77 characters')
    .max(77, 'pixKey must have 8 to 77 characters'),
  pixKeyType: pixKeyTypeSchema.default('CPF'),
});

export const saleStatusMoveSchema = z.object({ status: saleStatusSchema });
export const withdrawalStatusMoveSchema = z.object({ status: withdrawalStatusSchema });

export const configPatchSchema = z
  .object({
    webhookUrl: httpUrlSchema.nullable().optional(),
    postbackSecret: z.string().min(1).optional(),
  })
  .strict();

export const restrictionsPatchSchema = z
  .object({
    cashoutBlock: cashoutBlockSchema.nullable().optional(),
    salesForbidden: z.boolean().optional(),
  })
  .strict();

const reaisString = z.string().transform((value, ctx) => {
  try {
    return centsFromReaisString(value);
  } catch (error) {
    if (!(error instanceof MoneyError)) throw error;
    ctx.issues.push({ code: 'custom', message: 'expected reais like "1500.00"', input: value });
    return z.NEVER;
  }
});

export const balanceSetSchema = z.union([
  z.object({ availableCents: z.number().int().nonnegative().max(MAX_CENTS) }).strict(),
  z
    .object({ available: reaisString })
    .strict()
    .transform(({ available }) => ({ availableCents: available })),
]);

export const foreignSaleRequestSchema = z
  .object({
    paymentMethod: paymentMethodSchema.default('PIX'),
    amount: centsAmount.default(1000),
  })
  .strict();
