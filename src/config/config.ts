import { z } from 'zod';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';

/**
 * Every environment variable paymirror reads (docs/configuration.md), parsed once by the entry
 * points. Nothing else reads process.env: modules get what they need as arguments.
 */

const csv = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part.length > 0),
  );

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .optional()
  .transform((value) => (value === undefined ? undefined : ['true', '1', 'yes'].includes(value)));

const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const postgresUrl = z
  .string()
  .refine((v) => /^postgres(ql)?:\/\//.test(v) && URL.canParse(v), 'must be a postgres:// URL');
const redisUrl = z
  .string()
  .refine((v) => /^rediss?:\/\//.test(v) && URL.canParse(v), 'must be a redis:// URL');
const hostPort = z
  .string()
  .regex(/^[A-Za-z0-9.-]+:[0-9]{1,5}$/, 'each entry must be host:port')
  .transform((value) => {
    const at = value.lastIndexOf(':');
    return { host: value.slice(0, at), port: Number(value.slice(at + 1)) };
  })
  .refine((node) => node.port > 0 && node.port < 65536, 'port must be 1–65535');

const httpUrl = z
  .string()
  .refine((v) => /^https?:\/\//.test(v) && URL.canParse(v), 'must be an http(s):// URL');

/**
 * Jobs a signed-lane worker takes at once, which bounds its batch transactions. Large because
 * a batch's fixed cost (its round trips, one commit) is shared by its rows: draining 10,000
 * jobs, one worker applied 1,926 rows/s at 64, 2,905 at 256 and 3,276 at 512, where a bare
 * BullMQ worker doing one INSERT per job levels off at about 4,200 from 128 up
 * (bench/PERFORMANCE.md, "512 jobs a worker").
 */
export const DEFAULT_WORKER_CONCURRENCY = 512;

/** The admin listener's port (/metrics, bull-board, the console), on METRICS_HOST. */
const DEFAULT_METRICS_PORT = 9090;

export const envSchema = z.object({
  NODE_ENV: z
    .enum(['development', 'test', 'production'], {
      error: 'must be development, test or production',
    })
    .default('development'),
  DATABASE_URL: postgresUrl.default('postgres://postgres@127.0.0.1:5432/paymirror'),
  REPORTS_DATABASE_URL: postgresUrl.optional(),
  REDIS_URL: redisUrl.default('redis://127.0.0.1:6379'),
  REDIS_CLUSTER_NODES: csv.pipe(z.array(hostPort)),
  REDIS_SENTINELS: csv.pipe(z.array(hostPort)),
  REDIS_SENTINEL_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - only')
    .optional(),
  REDIS_PASSWORD: z.string().min(1).optional(),
  PORT: int(0, 65535).default(3000),
  METRICS_PORT: int(0, 65535).default(DEFAULT_METRICS_PORT),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  METRICS_CACHE_SECONDS: int(0, 3600).default(10),
  HOST: z.string().min(1).default('0.0.0.0'),
  PUBLIC_URL: httpUrl.optional(),
  POSTBACK_SECRETS: csv.pipe(
    z.array(z.string().min(16, 'each postback secret needs at least 16 characters')),
  ),
  WEBHOOK_TOKENS: csv.pipe(
    z.array(
      z
        .string()
        .regex(/^[A-Za-z0-9_-]{16,200}$/, 'each webhook token needs 16–200 URL-safe characters'),
    ),
  ),
  SELLER_USER_ID: int(0, Number.MAX_SAFE_INTEGER).optional(),
  WEBHOOK_ALLOWED_CIDRS: csv,
  TRUSTED_PROXY_COUNT: int(0, 10).default(0),
  GATEWAY_BASE_URL: httpUrl.optional(),
  GATEWAY_PUBLIC_KEY: z.string().min(1).optional(),
  GATEWAY_PRIVATE_KEY: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - only')
    .default('paymirror'),
  BODY_LIMIT_BYTES: int(1024, 10 * 1024 * 1024).default(64 * 1024),
  DEDUPE_WINDOW_HOURS: int(1, 24 * 365).default(24),
  SWEEP_INTERVAL_SECONDS: int(1, 3600).default(10),
  SWEEP_AFTER_SECONDS: int(0, 86400).default(30),
  WORKER_CONCURRENCY: int(1, 1024).default(DEFAULT_WORKER_CONCURRENCY),
  CONFIRMATION_CONCURRENCY: int(1, 256).default(16),
  JOB_ATTEMPTS: int(1, 100).default(10),
  JOB_BACKOFF_MS: int(1, 3_600_000).default(1000),
  DB_POOL_MAX: int(1, 200).default(10),
  JOB_LOCK_SECONDS: int(1, 3600).default(30),
  MIGRATE_ON_START: bool.default(true),
  SHUTDOWN_TIMEOUT_SECONDS: int(1, 3600).default(30),
  GATEWAY_MAX_RPS: int(1, 1000).default(5),
  GATEWAY_UNKNOWN_IDS_PERCENT: int(1, 100).default(20),
  GATEWAY_TIMEOUT_MS: int(100, 120_000).default(10_000),
  GATEWAY_BASE_URL_RECHECK_SECONDS: int(1, 3600).default(30),
  GATEWAY_NOT_OURS_BREAKER_LIMIT: int(2, 1_000_000).default(100),
  GATEWAY_NOT_OURS_BREAKER_WINDOW_SECONDS: int(1, 3600).default(60),
  GATEWAY_NOT_OURS_PAUSE_SECONDS: int(1, 86_400).default(300),
  RECONCILE_INTERVAL_SECONDS: int(10, 86_400).default(300),
  RECONCILE_BATCH_SIZE: int(1, 10_000).default(200),
  MED_WINDOW_DAYS: int(1, 3650).default(90),
  CHARGEBACK_WINDOW_DAYS: int(1, 3650).default(180),
  PAID_WATCH_DAYS: int(0, 3650).default(30),
  PIX_EXPIRY_HOURS: int(1, 24 * 365).default(24),
  BOLETO_EXPIRY_DAYS: int(1, 365).default(3),
  PENDING_GRACE_HOURS: int(0, 24 * 365).default(24),
  DISAGREEING_READS_TO_FLAG: int(1, 1000).default(3),
  TRANSITIONS_ENABLED: bool.optional(),
  TRANSITIONS_WEBHOOK_URL: httpUrl.optional(),
  TRANSITIONS_PUBLISH_INTERVAL_MS: int(50, 60_000).default(1000),
  TRANSITIONS_MAX_BACKLOG: int(100, 10_000_000).default(50_000),
  REJECTS_MAX_ROWS: int(0, 10_000_000).default(10_000),
  REJECTS_MAX_AGE_DAYS: int(1, 3650).default(7),
  REJECTS_SAMPLE_PER_HOUR: int(0, 10_000).default(3),
  UNAUTHENTICATED_BYTES_PER_MINUTE: int(0, 1024 * 1024 * 1024).default(1024 * 1024),
  INBOX_RETENTION_DAYS: int(0, 36500).default(90),
  SPOOL_DIR: z.string().min(1).default('data/spool'),
  SPOOL_MAX_MB: int(1, 1024 * 1024).default(1024),
  HEADERS_TIMEOUT_MS: int(500, 600_000).default(5_000),
  REQUEST_TIMEOUT_MS: int(500, 600_000).default(15_000),
  AUTH_FAILURES_MAX: int(0, 1_000_000).default(20),
  AUTH_FAILURES_WINDOW_SECONDS: int(1, 86_400).default(60),
  ADMIN_TOKEN: z.string().min(16, 'ADMIN_TOKEN needs at least 16 characters').optional(),
  ADMIN_WRITE: bool.default(false),
  UNCONFIRMED_WEBHOOKS: z.enum(['apply', 'hold'], { error: 'must be apply or hold' }).optional(),
});

export type Env = z.infer<typeof envSchema>;

export interface Config {
  readonly production: boolean;
  readonly databaseUrl: string;
  /** Where `report` reads (a replica); DATABASE_URL when not set. */
  readonly reportsDatabaseUrl: string;
  /** Where BullMQ and the shared limits live: one node, a cluster, or a Sentinel set. */
  readonly redis: RedisTopology;
  readonly port: number;
  /**
   * Where /metrics, bull-board and the console are served: a listener of their own
   * (METRICS_HOST:METRICS_PORT, loopback by default), or 'public' (PORT's listener) only when
   * METRICS_PORT is set to PORT.
   */
  readonly adminListener: AdminListener;
  /** Gauges read from Postgres and Redis are refreshed at most this often, whatever scrapes. */
  readonly metricsCacheSeconds: number;
  readonly host: string;
  readonly publicUrl: string;
  readonly postbackSecrets: readonly string[];
  readonly webhookTokens: readonly string[];
  readonly sellerUserId: number | null;
  readonly webhookAllowedCidrs: readonly string[];
  readonly trustedProxyCount: number;
  readonly gateway: {
    readonly baseUrl: string;
    readonly publicKey: string;
    readonly privateKey: string;
    readonly maxRps: number;
    /**
     * The part of maxRps that reads of records the mirror does not know (webhooks about
     * unknown ids) may take, in requests per second.
     */
    readonly unknownIdsMaxRps: number;
    readonly timeoutMs: number;
    /** While the base URL check has not passed, it is tried again this often. */
    readonly baseUrlRecheckMs: number;
    readonly notOursBreaker: {
      readonly limit: number;
      readonly windowMs: number;
      readonly pauseMs: number;
    };
  } | null;
  readonly reconcile: {
    readonly intervalSeconds: number;
    readonly batchSize: number;
  };
  readonly watchPolicy: WatchPolicy;
  readonly transitions: {
    readonly enabled: boolean;
    readonly webhookUrl: string | null;
    readonly publishIntervalMs: number;
    /** Jobs waiting in the feed's queue past which publishing pauses (rows stay in the outbox). */
    readonly maxBacklog: number;
  };
  readonly rejects: { readonly maxRows: number; readonly maxAgeDays: number };
  /**
   * What unauthenticated requests may write, per ingress process: bytes per minute for rejected
   * deliveries and quarantined webhooks together, and whole rejected bodies per source per hour.
   */
  readonly unauthenticated: { readonly bytesPerMinute: number; readonly samplePerHour: number };
  /**
   * Processed inbox rows older than this, and dedupe keys past their window, are deleted by the
   * scheduler; 0: it deletes neither (`paymirror prune` by hand).
   */
  readonly inboxRetentionDays: number;
  readonly spool: { readonly dir: string; readonly maxBytes: number };
  /** Slow clients: the whole header section, and the whole request, must arrive within these. */
  readonly http: { readonly headersTimeoutMs: number; readonly requestTimeoutMs: number };
  /** Per-source limit on unauthenticated failures (401, 404 token, 403 source); null: off. */
  readonly authFailures: { readonly maxFailures: number; readonly windowMs: number } | null;
  /** Enables bull-board at /admin/queues, behind this bearer token. */
  readonly adminToken: string | null;
  /** bull-board's retry, clean and remove actions; off by default (the board is read-only). */
  readonly adminWrite: boolean;
  /**
   * Without gateway keys a webhook cannot be confirmed: 'apply' writes it as received
   * (development), 'hold' stores it and keeps it out of the mirror; null: not set (apply,
   * and `start` refuses production). With keys, unused: every webhook is confirmed.
   */
  readonly unconfirmedWebhooks: 'apply' | 'hold' | null;
  readonly logLevel: Env['LOG_LEVEL'];
  readonly queuePrefix: string;
  readonly bodyLimitBytes: number;
  readonly dedupeWindowHours: number;
  readonly sweepIntervalSeconds: number;
  readonly sweepAfterSeconds: number;
  readonly workerConcurrency: number;
  /** Jobs at once in the confirmation lane (rows waiting on a gateway read). */
  readonly confirmationConcurrency: number;
  readonly jobAttempts: number;
  readonly jobBackoffMs: number;
  /** A job whose worker stops renewing its lock this long is stalled and runs again. */
  readonly jobLockSeconds: number;
  readonly dbPoolMax: number;
  readonly migrateOnStart: boolean;
  readonly shutdownTimeoutSeconds: number;
}

type AdminListener = { readonly host: string; readonly port: number } | 'public';

interface RedisNode {
  readonly host: string;
  readonly port: number;
}

export type RedisTopology =
  | { readonly kind: 'single'; readonly url: string }
  | {
      readonly kind: 'cluster';
      readonly nodes: readonly RedisNode[];
      readonly password: string | null;
    }
  | {
      readonly kind: 'sentinel';
      readonly sentinels: readonly RedisNode[];
      readonly name: string;
      readonly password: string | null;
    };

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Parses the environment; throws one ConfigError naming every bad or missing variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map(
        (issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`,
      ),
    );
  }
  const e = parsed.data;
  const problems: string[] = [];
  const gatewayVars = [e.GATEWAY_BASE_URL, e.GATEWAY_PUBLIC_KEY, e.GATEWAY_PRIVATE_KEY];
  const gatewaySet = gatewayVars.filter((v) => v !== undefined).length;
  if (gatewaySet > 0 && gatewaySet < 3) {
    problems.push(
      'GATEWAY_BASE_URL, GATEWAY_PUBLIC_KEY, GATEWAY_PRIVATE_KEY: set all three or none',
    );
  }
  for (const cidr of e.WEBHOOK_ALLOWED_CIDRS) {
    if (!isCidr(cidr)) problems.push(`WEBHOOK_ALLOWED_CIDRS: "${cidr}" is not a CIDR (a.b.c.d/n)`);
  }
  if (e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS) {
    problems.push('HEADERS_TIMEOUT_MS: must not be larger than REQUEST_TIMEOUT_MS');
  }
  if (e.TRANSITIONS_ENABLED === false && e.TRANSITIONS_WEBHOOK_URL !== undefined) {
    problems.push(
      'TRANSITIONS_WEBHOOK_URL: set, while TRANSITIONS_ENABLED=false turns the feed off',
    );
  }
  const redis = redisTopology(e, cleaned, problems);
  const adminListener = adminListenerOf(e, cleaned, problems);
  if (problems.length > 0) throw new ConfigError(problems);

  return {
    production: e.NODE_ENV === 'production',
    databaseUrl: e.DATABASE_URL,
    reportsDatabaseUrl: e.REPORTS_DATABASE_URL ?? e.DATABASE_URL,
    redis: redis as RedisTopology,
    port: e.PORT,
    adminListener: adminListener as AdminListener,
    metricsCacheSeconds: e.METRICS_CACHE_SECONDS,
    host: e.HOST,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    postbackSecrets: e.POSTBACK_SECRETS,
    webhookTokens: e.WEBHOOK_TOKENS,
    sellerUserId: e.SELLER_USER_ID ?? null,
    webhookAllowedCidrs: e.WEBHOOK_ALLOWED_CIDRS,
    trustedProxyCount: e.TRUSTED_PROXY_COUNT,
    gateway:
      e.GATEWAY_BASE_URL && e.GATEWAY_PUBLIC_KEY && e.GATEWAY_PRIVATE_KEY
        ? {
            baseUrl: e.GATEWAY_BASE_URL.replace(/\/+$/, ''),
            publicKey: e.GATEWAY_PUBLIC_KEY,
            privateKey: e.GATEWAY_PRIVATE_KEY,
            maxRps: e.GATEWAY_MAX_RPS,
            unknownIdsMaxRps: (e.GATEWAY_MAX_RPS * e.GATEWAY_UNKNOWN_IDS_PERCENT) / 100,
            timeoutMs: e.GATEWAY_TIMEOUT_MS,
            baseUrlRecheckMs: e.GATEWAY_BASE_URL_RECHECK_SECONDS * 1000,
            notOursBreaker: {
              limit: e.GATEWAY_NOT_OURS_BREAKER_LIMIT,
              windowMs: e.GATEWAY_NOT_OURS_BREAKER_WINDOW_SECONDS * 1000,
              pauseMs: e.GATEWAY_NOT_OURS_PAUSE_SECONDS * 1000,
            },
          }
        : null,
    reconcile: { intervalSeconds: e.RECONCILE_INTERVAL_SECONDS, batchSize: e.RECONCILE_BATCH_SIZE },
    transitions: {
      // Opt-in: a feed nobody reads costs every transition a job in Redis and a write, and
      // raises PaymirrorTransitionFeedBacklog. paymirror's own consumer asks for it.
      enabled: e.TRANSITIONS_ENABLED ?? e.TRANSITIONS_WEBHOOK_URL !== undefined,
      webhookUrl: e.TRANSITIONS_WEBHOOK_URL ?? null,
      publishIntervalMs: e.TRANSITIONS_PUBLISH_INTERVAL_MS,
      maxBacklog: e.TRANSITIONS_MAX_BACKLOG,
    },
    rejects: { maxRows: e.REJECTS_MAX_ROWS, maxAgeDays: e.REJECTS_MAX_AGE_DAYS },
    unauthenticated: {
      bytesPerMinute: e.UNAUTHENTICATED_BYTES_PER_MINUTE,
      samplePerHour: e.REJECTS_SAMPLE_PER_HOUR,
    },
    inboxRetentionDays: e.INBOX_RETENTION_DAYS,
    adminToken: e.ADMIN_TOKEN ?? null,
    adminWrite: e.ADMIN_WRITE,
    unconfirmedWebhooks: e.UNCONFIRMED_WEBHOOKS ?? null,
    spool: { dir: e.SPOOL_DIR, maxBytes: e.SPOOL_MAX_MB * 1024 * 1024 },
    http: { headersTimeoutMs: e.HEADERS_TIMEOUT_MS, requestTimeoutMs: e.REQUEST_TIMEOUT_MS },
    authFailures:
      e.AUTH_FAILURES_MAX === 0
        ? null
        : { maxFailures: e.AUTH_FAILURES_MAX, windowMs: e.AUTH_FAILURES_WINDOW_SECONDS * 1000 },
    watchPolicy: {
      medWindowDays: e.MED_WINDOW_DAYS,
      chargebackWindowDays: e.CHARGEBACK_WINDOW_DAYS,
      paidWatchDays: e.PAID_WATCH_DAYS,
      pixExpiryHours: e.PIX_EXPIRY_HOURS,
      boletoExpiryDays: e.BOLETO_EXPIRY_DAYS,
      pendingGraceHours: e.PENDING_GRACE_HOURS,
      disagreeingReadsToFlag: e.DISAGREEING_READS_TO_FLAG,
    },
    logLevel: e.LOG_LEVEL,
    queuePrefix: e.QUEUE_PREFIX,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    dedupeWindowHours: e.DEDUPE_WINDOW_HOURS,
    sweepIntervalSeconds: e.SWEEP_INTERVAL_SECONDS,
    sweepAfterSeconds: e.SWEEP_AFTER_SECONDS,
    workerConcurrency: e.WORKER_CONCURRENCY,
    confirmationConcurrency: e.CONFIRMATION_CONCURRENCY,
    jobAttempts: e.JOB_ATTEMPTS,
    jobBackoffMs: e.JOB_BACKOFF_MS,
    jobLockSeconds: e.JOB_LOCK_SECONDS,
    dbPoolMax: e.DB_POOL_MAX,
    migrateOnStart: e.MIGRATE_ON_START,
    shutdownTimeoutSeconds: e.SHUTDOWN_TIMEOUT_SECONDS,
  };
}

/**
 * The admin routes reach the public port only when asked to by name: METRICS_PORT set to PORT.
 * A PORT that happens to be METRICS_PORT's default is refused rather than taken as that request.
 */
function adminListenerOf(
  e: Env,
  given: Record<string, unknown>,
  problems: string[],
): AdminListener | null {
  if (e.PORT === 0 || e.METRICS_PORT !== e.PORT) {
    return { host: e.METRICS_HOST, port: e.METRICS_PORT };
  }
  if (given.METRICS_PORT === undefined) {
    problems.push(
      `PORT: ${e.PORT} is METRICS_PORT's default; set METRICS_PORT to another port (or to ` +
        `${e.PORT} to serve /metrics and the admin UI on the public port)`,
    );
    return null;
  }
  if (given.METRICS_HOST !== undefined && e.METRICS_HOST !== e.HOST) {
    problems.push(
      'METRICS_HOST: with METRICS_PORT equal to PORT the admin routes share the public ' +
        'listener on HOST; leave METRICS_HOST unset',
    );
    return null;
  }
  return 'public';
}

/** Exactly one topology: REDIS_URL (the default), REDIS_CLUSTER_NODES, or REDIS_SENTINELS. */
function redisTopology(
  e: Env,
  given: Record<string, unknown>,
  problems: string[],
): RedisTopology | null {
  const password = e.REDIS_PASSWORD ?? null;
  const chosen = [
    given.REDIS_URL !== undefined && 'REDIS_URL',
    e.REDIS_CLUSTER_NODES.length > 0 && 'REDIS_CLUSTER_NODES',
    e.REDIS_SENTINELS.length > 0 && 'REDIS_SENTINELS',
  ].filter((name): name is string => name !== false);
  if (chosen.length > 1) {
    problems.push(`${chosen.join(', ')}: set one Redis topology, not ${chosen.length}`);
    return null;
  }
  if (e.REDIS_SENTINELS.length > 0) {
    if (!e.REDIS_SENTINEL_NAME) {
      problems.push('REDIS_SENTINEL_NAME: required with REDIS_SENTINELS (the master group name)');
      return null;
    }
    return {
      kind: 'sentinel',
      sentinels: e.REDIS_SENTINELS,
      name: e.REDIS_SENTINEL_NAME,
      password,
    };
  }
  if (e.REDIS_SENTINEL_NAME) {
    problems.push('REDIS_SENTINEL_NAME: only meaningful with REDIS_SENTINELS');
    return null;
  }
  if (e.REDIS_CLUSTER_NODES.length > 0) {
    return { kind: 'cluster', nodes: e.REDIS_CLUSTER_NODES, password };
  }
  if (password !== null) {
    problems.push('REDIS_PASSWORD: for a cluster or Sentinel; with REDIS_URL put it in the URL');
    return null;
  }
  return { kind: 'single', url: e.REDIS_URL };
}

function isCidr(value: string): boolean {
  const match = /^([0-9a-fA-F.:]+)\/([0-9]{1,3})$/.exec(value);
  if (!match) return false;
  const prefix = Number(match[2]);
  const isV6 = (match[1] ?? '').includes(':');
  return prefix <= (isV6 ? 128 : 32);
}
