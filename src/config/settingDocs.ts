import type { Env } from './config.js';

/**
 * What each setting means, for docs/configuration.md (generated: `npm run docs:config`; a test
 * fails when the file and the schema drift). Typed by the schema: a new setting without a
 * description does not compile.
 */
export interface SettingDoc {
  readonly group: string;
  readonly meaning: string;
  /** Shown instead of the schema's default when that cannot say it (another setting's value). */
  readonly shownDefault?: string;
}

export const SETTING_DOCS: { readonly [K in keyof Env]-?: SettingDoc } = {
  NODE_ENV: {
    group: 'Where things are',
    meaning:
      '`development`, `test` or `production` (anything else refuses to start); `production` refuses to start without secrets and gateway keys',
  },
  DATABASE_URL: {
    group: 'Where things are',
    meaning:
      'Postgres; the database is created if missing. `?host=/var/run/postgresql` for a Unix socket; `?prepare=false` behind PgBouncer in transaction mode (nothing prepared, nothing pipelined: docs/reliability.md). Connections show as `paymirror <roles>` in pg_stat_activity unless the URL sets `?application_name=`',
  },
  REPORTS_DATABASE_URL: {
    group: 'Where things are',
    meaning: 'Where `paymirror report` reads (a read replica): reports never write',
    shownDefault: 'DATABASE_URL',
  },
  REDIS_URL: {
    group: 'Where things are',
    meaning: 'Redis for BullMQ',
  },
  REDIS_CLUSTER_NODES: {
    group: 'Where things are',
    meaning:
      'A Redis Cluster instead of `REDIS_URL`: comma-separated `host:port` of some of its nodes; each queue gets its own hash tag',
  },
  REDIS_SENTINELS: {
    group: 'Where things are',
    meaning:
      'A Sentinel-managed Redis instead of `REDIS_URL`: comma-separated `host:port` of the sentinels',
  },
  REDIS_SENTINEL_NAME: {
    group: 'Where things are',
    meaning: 'The master group the sentinels watch (required with `REDIS_SENTINELS`)',
  },
  REDIS_PASSWORD: {
    group: 'Where things are',
    meaning:
      'Password of the cluster nodes or of the Sentinel-managed master (with `REDIS_URL`, put it in the URL)',
  },
  QUEUE_PREFIX: {
    group: 'Where things are',
    meaning: 'BullMQ key prefix in Redis',
  },
  HOST: {
    group: 'Where things are',
    meaning: 'Interface of the public listener (`PORT`)',
  },
  PORT: {
    group: 'Where things are',
    meaning:
      'The public listener of every role: `/healthz` and `/readyz`, and the notification routes on the ingress',
  },
  METRICS_PORT: {
    group: 'Where things are',
    meaning:
      'The admin listener: `/metrics`, bull-board (`/admin/queues`) and the console (`/console`), on `METRICS_HOST`; never on `PORT` unless set equal to `PORT` (then the admin routes share the public listener). `0`: a free port',
  },
  METRICS_HOST: {
    group: 'Where things are',
    meaning:
      'Interface of the admin listener; loopback by default, so only this host reaches it (`0.0.0.0` in a container that Prometheus scrapes)',
  },
  PUBLIC_URL: {
    group: 'Where things are',
    meaning: 'How the gateway reaches paymirror; only used to print the URLs to configure',
    shownDefault: 'http://localhost:$PORT',
  },
  TRUSTED_PROXY_COUNT: {
    group: 'Where things are',
    meaning: 'Proxies in front of paymirror whose `X-Forwarded-For` entries are trusted',
  },
  LOG_LEVEL: {
    group: 'Where things are',
    meaning: '`fatal` … `trace`, or `silent`',
  },
  POSTBACK_SECRETS: {
    group: 'Authentication',
    meaning:
      'Comma-separated postback HMAC secrets, ≥ 16 characters each; several during a rotation',
    shownDefault: '— (required in production)',
  },
  WEBHOOK_TOKENS: {
    group: 'Authentication',
    meaning: 'Comma-separated webhook path tokens, 16–200 URL-safe characters',
    shownDefault: '— (required in production)',
  },
  SELLER_USER_ID: {
    group: 'Authentication',
    meaning: 'Your gateway user id; webhooks with another `userId` get 403',
    shownDefault: '— (required in production)',
  },
  WEBHOOK_ALLOWED_CIDRS: {
    group: 'Authentication',
    meaning: 'Comma-separated CIDRs allowed to send webhooks',
    shownDefault: '— (any source)',
  },
  UNCONFIRMED_WEBHOOKS: {
    group: 'Authentication',
    meaning:
      'Without gateway keys: `apply` webhooks as received (development) or `hold` them (stored, outcome `held`, kept out of the mirror); production without keys needs `hold`',
    shownDefault: '— (apply)',
  },
  ADMIN_TOKEN: {
    group: 'Authentication',
    meaning:
      'Enables bull-board at `/admin/queues` and the console at `/console` on the admin listener, behind this token (at least 16 characters)',
  },
  ADMIN_WRITE: {
    group: 'Authentication',
    meaning: "Enables bull-board's write actions (retry, clean, pause, empty); read-only otherwise",
  },
  GATEWAY_BASE_URL: {
    group: 'The gateway',
    meaning: 'Gateway API access (all three or none); used to confirm webhooks and reconcile',
    shownDefault: '— (all three or none)',
  },
  GATEWAY_PUBLIC_KEY: {
    group: 'The gateway',
    meaning: 'Gateway API access (all three or none); used to confirm webhooks and reconcile',
    shownDefault: '— (all three or none)',
  },
  GATEWAY_PRIVATE_KEY: {
    group: 'The gateway',
    meaning: 'Gateway API access (all three or none); used to confirm webhooks and reconcile',
    shownDefault: '— (all three or none)',
  },
  GATEWAY_MAX_RPS: {
    group: 'The gateway',
    meaning:
      'Requests per second to the gateway for the whole account: every process draws from one bucket in Redis (retries included)',
  },
  GATEWAY_UNKNOWN_IDS_PERCENT: {
    group: 'The gateway',
    meaning:
      'The part of `GATEWAY_MAX_RPS` (in %, shared by every process like it) that confirming webhooks about ids the mirror does not know may take: a leaked webhook URL sending made-up ids slows those down, never the confirmation of a known sale or withdrawal, reconciliation or the operator',
  },
  GATEWAY_TIMEOUT_MS: {
    group: 'The gateway',
    meaning: 'Per request to the gateway',
  },
  GATEWAY_BASE_URL_RECHECK_SECONDS: {
    group: 'The gateway',
    meaning:
      'How often the base URL check (GET /api/transactions/{not a number} must answer 400) is tried again while it has not passed: until it does, no answer is read as "not ours" (docs/reconciliation.md)',
  },
  GATEWAY_NOT_OURS_BREAKER_LIMIT: {
    group: 'The gateway',
    meaning:
      'This many "not ours" answers (404/403 in shape B) within `GATEWAY_NOT_OURS_BREAKER_WINDOW_SECONDS` pause that classification in this process: such answers become "cannot tell now" and are retried (docs/reconciliation.md)',
  },
  GATEWAY_NOT_OURS_BREAKER_WINDOW_SECONDS: {
    group: 'The gateway',
    meaning: 'The window `GATEWAY_NOT_OURS_BREAKER_LIMIT` counts in',
  },
  GATEWAY_NOT_OURS_PAUSE_SECONDS: {
    group: 'The gateway',
    meaning:
      'How long a tripped breaker pauses the "not ours" classification; it resumes after that once the base URL check passes again',
  },
  BODY_LIMIT_BYTES: {
    group: 'Ingress',
    meaning: 'Larger notification bodies get 413',
  },
  DEDUPE_WINDOW_HOURS: {
    group: 'Ingress',
    meaning: 'How long a logical event key stays a duplicate after its first delivery',
  },
  HEADERS_TIMEOUT_MS: {
    group: 'Ingress',
    meaning: 'A client must send its headers within this (slow clients are cut off)',
  },
  REQUEST_TIMEOUT_MS: {
    group: 'Ingress',
    meaning: 'A client must send its whole request within this',
  },
  AUTH_FAILURES_MAX: {
    group: 'Ingress',
    meaning:
      'Authentication failures per source address before 429 (0: no limit), counted across every ingress process (in Redis)',
  },
  AUTH_FAILURES_WINDOW_SECONDS: {
    group: 'Ingress',
    meaning: 'The window of that count',
  },
  REJECTS_SAMPLE_PER_HOUR: {
    group: 'Ingress',
    meaning:
      'Rejected deliveries (failed authentication) keep their digest, headers, size and first 1 KiB; their whole body only for this many per source (an IPv6 /64 is one) per hour, per ingress process: enough for `paymirror rejected reverify` after a secret mix-up. `0`: never the whole body',
  },
  UNAUTHENTICATED_BYTES_PER_MINUTE: {
    group: 'Ingress',
    meaning:
      'Bytes per minute, per ingress process, that rejected deliveries and quarantined webhooks may write (bodies, headers, row). Past it a rejection is not stored (only counted: `paymirror_unauthenticated_skipped_rows_total`) and a quarantined webhook keeps its first 1 KiB (still answered `quarantined` with an id); a quarantined signed postback is always kept whole',
  },
  SPOOL_DIR: {
    group: 'Ingress',
    meaning:
      'Where the ingress spools deliveries while Postgres is down (persistent disk, one per ingress)',
  },
  SPOOL_MAX_MB: {
    group: 'Ingress',
    meaning: 'Past this the spool refuses and the ingress answers 503',
  },
  WORKER_CONCURRENCY: {
    group: 'Workers and the queue',
    meaning:
      'Jobs a worker process takes at once; their rows are applied together, in batch transactions of up to this many rows',
  },
  CONFIRMATION_CONCURRENCY: {
    group: 'Workers and the queue',
    meaning:
      'Jobs a worker process takes at once in the confirmation lane (webhooks waiting on their gateway read)',
  },
  JOB_ATTEMPTS: {
    group: 'Workers and the queue',
    meaning: 'Attempts before an inbox row is marked `failed`',
  },
  JOB_BACKOFF_MS: {
    group: 'Workers and the queue',
    meaning: 'Base of the exponential retry backoff',
  },
  JOB_LOCK_SECONDS: {
    group: 'Workers and the queue',
    meaning: 'A job whose worker died is run again after about this long',
  },
  SWEEP_INTERVAL_SECONDS: {
    group: 'Workers and the queue',
    meaning: 'How often the sweeper runs',
  },
  SWEEP_AFTER_SECONDS: {
    group: 'Workers and the queue',
    meaning: 'A pending inbox row enqueued longer ago than this is enqueued again',
  },
  DB_POOL_MAX: {
    group: 'Workers and the queue',
    meaning: 'Postgres connections per process',
  },
  RECONCILE_INTERVAL_SECONDS: {
    group: 'Reconciliation',
    meaning: 'How often the scheduler runs a reconciliation pass',
  },
  RECONCILE_BATCH_SIZE: {
    group: 'Reconciliation',
    meaning: 'Rows a scheduled pass checks at most',
  },
  MED_WINDOW_DAYS: {
    group: 'Reconciliation',
    meaning: 'A paid PIX sale stays under watch this long (MED disputes come late)',
  },
  CHARGEBACK_WINDOW_DAYS: {
    group: 'Reconciliation',
    meaning: 'A paid card sale stays under watch this long',
  },
  PAID_WATCH_DAYS: {
    group: 'Reconciliation',
    meaning: 'A paid boleto (or transfer) sale stays under watch this long (refunds)',
  },
  PIX_EXPIRY_HOURS: {
    group: 'Reconciliation',
    meaning:
      "The gateway's default PIX expiry, after creation: used for a pending PIX whose own `expiresAt` paymirror does not know (only the answer to a sale paymirror created carries it), or that the gateway gave as null",
  },
  BOLETO_EXPIRY_DAYS: {
    group: 'Reconciliation',
    meaning:
      'When a pending boleto whose code carries no due date is taken to be due, after creation (its due date otherwise comes from the code)',
  },
  PENDING_GRACE_HOURS: {
    group: 'Reconciliation',
    meaning:
      'Pending PIX/boleto sales are watched until expiry (a boleto: its due date plus 3 business days of compensation) plus this',
  },
  DISAGREEING_READS_TO_FLAG: {
    group: 'Reconciliation',
    meaning:
      'Gateway reads in a row that contradict a final status a signed postback or a confirmed webhook set, before the record is flagged for an operator (`paymirror report flagged`)',
  },
  TRANSITIONS_ENABLED: {
    group: 'Transition feed',
    meaning:
      'Publish status_history rows to the `paymirror-transitions` queue (off unless asked for)',
    shownDefault: '— (`true` when TRANSITIONS_WEBHOOK_URL is set)',
  },
  TRANSITIONS_WEBHOOK_URL: {
    group: 'Transition feed',
    meaning: 'Also POST each transition there (paymirror consumes the queue itself)',
  },
  TRANSITIONS_PUBLISH_INTERVAL_MS: {
    group: 'Transition feed',
    meaning: 'How often the outbox publishes new transitions',
  },
  TRANSITIONS_MAX_BACKLOG: {
    group: 'Transition feed',
    meaning:
      'Waiting feed jobs past which publishing pauses (rows wait in `status_history`; nothing lost)',
  },
  INBOX_RETENTION_DAYS: {
    group: 'Retention and running',
    meaning:
      'The scheduler deletes processed inbox rows older than this, and dedupe keys past their window; `0`: it deletes neither',
  },
  REJECTS_MAX_ROWS: {
    group: 'Retention and running',
    meaning: 'Rejected deliveries kept at most',
  },
  REJECTS_MAX_AGE_DAYS: {
    group: 'Retention and running',
    meaning: 'Rejected deliveries kept this long',
  },
  MIGRATE_ON_START: {
    group: 'Retention and running',
    meaning: '`start` applies migrations first',
  },
  SHUTDOWN_TIMEOUT_SECONDS: {
    group: 'Retention and running',
    meaning: 'How long a drain waits for open connections before cutting them',
  },
  METRICS_CACHE_SECONDS: {
    group: 'Retention and running',
    meaning:
      'Gauges read from Postgres and Redis are refreshed at most this often, however many scrapers',
  },
};
