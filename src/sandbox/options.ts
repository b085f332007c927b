/**
 * Options of createSandbox, validated once with zod, and the schema the CLI uses to
 * validate its own flags (sandboxOptionsSchema). Nothing here reads the environment.
 */
import { z } from 'zod';
import { centsFromReaisString, MoneyError } from '../domain/money.js';
import { faultsPatchSchema } from './delivery/faults.js';
import type { Faults } from './delivery/faults.js';
import { SANDBOX_KEY_PREFIX } from './keys.js';

export interface SandboxLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface SandboxOptions {
  readonly publicKey: string;
  readonly privateKey: string;
  readonly postbackSecret: string;
  /** The permanent webhook (docs/gateway.md 6.1); null or absent: no webhook deliveries. */
  readonly webhookUrl?: string | null;
  readonly userId: number;
  /** Default 0. */
  readonly initialBalanceCents?: number;
  /** Default: every fault off. */
  readonly faults?: Partial<Faults>;
  /** Source of fault decisions, for deterministic tests. Default Math.random. */
  readonly random?: () => number;
  readonly logger?: SandboxLogger;
  /** First retry after this many ms, doubling each attempt. Default 1000. */
  readonly retryBaseMs?: number;
  /** Attempts per delivery, the first included. Default 8. */
  readonly maxAttempts?: number;
  /** Time-out of one delivery attempt. Default 5000. */
  readonly deliveryTimeoutMs?: number;
  /** Attempts in flight at once. Default 4; 1 gives a strict send order. */
  readonly deliveryConcurrency?: number;
  /** How long the reorder fault holds a notification when no other one follows. Default 1000. */
  readonly reorderMaxHoldMs?: number;
  /** PIX charges expire (and the sale is CANCELADO) after this. Default 3 600 000; null: never. */
  readonly pixExpiryMs?: number | null;
  /** Owner of the sales created by POST /_sandbox/foreign-sales. Default userId + 1. */
  readonly foreignUserId?: number;
  /** The `user` object of withdrawal notifications (docs/gateway.md 6.5). */
  readonly user?: { readonly name: string; readonly email: string };
  /** First sale id and first withdrawal id. Default 1. */
  readonly firstId?: number;
  /** Most recent delivery attempts kept for GET /_sandbox/deliveries. Default 10 000. */
  readonly deliveryLogLimit?: number;
  /** Clock, for tests. Default () => new Date(). */
  readonly now?: () => Date;
}

export class SandboxOptionsError extends Error {
  override readonly name = 'SandboxOptionsError';
  constructor(readonly issues: string) {
    super(`invalid sandbox options:\n${issues}`);
  }
}

const apiKeySchema = z
  .string()
  .min(SANDBOX_KEY_PREFIX.length + 8, 'API key too short')
  .startsWith(SANDBOX_KEY_PREFIX, `API keys start with ${SANDBOX_KEY_PREFIX}`);

export const httpUrlSchema = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' });

const positiveInt = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const nonNegativeInt = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

const NOOP_LOGGER: SandboxLogger = { info: () => undefined, warn: () => undefined };

const sandboxSettingsSchema = z
  .object({
    publicKey: apiKeySchema,
    privateKey: apiKeySchema,
    postbackSecret: z.string().min(1),
    webhookUrl: httpUrlSchema.nullable().default(null),
    userId: positiveInt,
    initialBalanceCents: nonNegativeInt.default(0),
    faults: faultsPatchSchema.default({}),
    random: z
      .custom<() => number>((value) => typeof value === 'function')
      .default(() => Math.random),
    logger: z
      .custom<SandboxLogger>(
        (value) =>
          typeof value === 'object' &&
          value !== null &&
          typeof (value as Partial<SandboxLogger>).info === 'function' &&
          typeof (value as Partial<SandboxLogger>).warn === 'function',
        'expected a logger with info and warn',
      )
      .default(NOOP_LOGGER),
    retryBaseMs: nonNegativeInt.default(1000),
    maxAttempts: positiveInt.max(100).default(8),
    deliveryTimeoutMs: positiveInt.default(5000),
    deliveryConcurrency: positiveInt.max(256).default(4),
    reorderMaxHoldMs: nonNegativeInt.default(1000),
    pixExpiryMs: positiveInt.nullable().default(3_600_000),
    foreignUserId: positiveInt.optional(),
    user: z
      .object({ name: z.string().min(1), email: z.email() })
      .default({ name: 'Sandbox Seller', email: 'seller@sandbox.invalid' }),
    firstId: positiveInt.default(1),
    deliveryLogLimit: positiveInt.default(10_000),
    now: z
      .custom<() => Date>((value) => typeof value === 'function')
      .default(() => () => new Date()),
  })
  .refine((settings) => settings.foreignUserId !== settings.userId, {
    message: 'foreignUserId must differ from userId',
    path: ['foreignUserId'],
  });

export type SandboxSettings = Omit<z.output<typeof sandboxSettingsSchema>, 'foreignUserId'> & {
  readonly foreignUserId: number;
};

export function resolveSandboxSettings(options: SandboxOptions): SandboxSettings {
  const parsed = sandboxSettingsSchema.safeParse(options);
  if (!parsed.success) throw new SandboxOptionsError(z.prettifyError(parsed.error));
  return { ...parsed.data, foreignUserId: parsed.data.foreignUserId ?? parsed.data.userId + 1 };
}

const reaisAmountSchema = z.string().transform((value, ctx) => {
  try {
    return centsFromReaisString(value.trim());
  } catch (error) {
    if (!(error instanceof MoneyError)) throw error;
    ctx.issues.push({
      code: 'custom',
      message: 'expected reais like 1500 or 1500.50',
      input: value,
    });
    return z.NEVER;
  }
});

/**
 * The `paymirror sandbox` flags (strings from the command line are coerced). The output
 * spreads into createSandbox, plus `port` and `host` for listen().
 */
export const sandboxOptionsSchema = z
  .object({
    port: z.coerce.number().int().min(0).max(65_535).default(4000),
    host: z.string().min(1).default('127.0.0.1'),
    publicKey: apiKeySchema,
    privateKey: apiKeySchema,
    postbackSecret: z.string().min(1),
    webhookUrl: z.preprocess(
      (value) => (value === '' || value === undefined ? null : value),
      httpUrlSchema.nullable(),
    ),
    userId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    initialBalance: reaisAmountSchema.default(0),
  })
  .transform(({ initialBalance, ...rest }) => ({ ...rest, initialBalanceCents: initialBalance }));

export type SandboxCliOptions = z.output<typeof sandboxOptionsSchema>;
