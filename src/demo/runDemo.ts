/**
 * `paymirror demo`: the sandbox gateway and paymirror (every role, in this process) against
 * the local Postgres and Redis; a seeded scenario with faults on; the pipeline drained; sandbox
 * truth vs mirror before and after one reconciliation pass. Returns the numbers, so that tests
 * can assert on them; prints only through `output` and `progress`.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { DestinationStream } from 'pino';
import { parseConfig, type Config } from '../config/config.js';
import { createDatabase, type Database, type Sql } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';
import { emptyAllTables } from '../db/emptyTables.js';
import { createLogger } from '../log/logger.js';
import { withPassLock } from '../reconciler/passLock.js';
import {
  runReconcilePass,
  type PassSummary,
  type ReconcileDeps,
} from '../reconciler/reconcilePass.js';
import { gatewayClientFor } from '../runtime/gatewayClient.js';
import { parseRoles } from '../runtime/roles.js';
import { startPaymirror, type RunningPaymirror } from '../runtime/startPaymirror.js';
import { createSandbox, generateKeyPair, type Sandbox } from '../sandbox/index.js';
import { booksSummary, formatBooks, type BooksSummary } from './books.js';
import { compareSnapshots, type Comparison, type Snapshot } from './compare.js';
import { driveScenario, type DriveReport } from './drive.js';
import { DemoError } from './errors.js';
import { DEMO_FAULTS, demoOptionsSchema } from './options.js';
import { NO_PROGRESS, type Progress } from './progress.js';
import { seededRandom } from './random.js';
import { buildScenario, SALE_PATHS } from './scenario.js';
import {
  inboxSummary,
  mirrorSnapshot,
  summarizeDeliveries,
  truthSnapshot,
  type DeliverySummary,
  type InboxSummary,
} from './snapshot.js';
import { formatComparison } from './table.js';
import { inboxTotals } from '../inbox/sql/counts.js';
import { discrepancyCount } from '../mirror/sql/discrepancies.js';

export interface DemoSettings {
  /** Emptied at the start (its tables are truncated; the database itself is never dropped). */
  readonly databaseUrl: string;
  readonly redisUrl: string;
  /** BullMQ prefix; default `paymirror-demo-<random>`. Its keys are deleted at the end. */
  readonly queuePrefix?: string;
  readonly sales?: number | string;
  readonly withdrawals?: number | string;
  readonly seed?: number | string;
  readonly faults?: boolean;
  /** paymirror's and the sandbox's log level; default silent. */
  readonly logLevel?: string;
  readonly logDestination?: DestinationStream;
  /** The report: header, tables, summary (the CLI writes it to stdout). */
  readonly output?: (text: string) => void;
  readonly progress?: Progress;
  readonly signal?: AbortSignal;
  /** How long the pipeline may take to drain after the drive. Default 120 s. */
  readonly drainTimeoutMs?: number;
  /** The console's admin token (ADMIN_TOKEN); a random one when not given. */
  readonly adminToken?: string;
  /** How the report tells where that token is (e.g. the file the CLI keeps it in). */
  readonly adminTokenHint?: string;
  /**
   * Runs after the report, while paymirror and the sandbox still run; they stop once it settles
   * (`demo --keep`: at Ctrl-C; the browser tests: when they have looked at the console).
   */
  readonly whileRunning?: (running: RunningDemo) => Promise<void>;
}

/** What runs while `whileRunning` does. */
export interface RunningDemo {
  /** The console, on paymirror's admin listener: `<metricsUrl>/console`. */
  readonly consoleUrl: string;
  readonly adminToken: string;
  readonly paymirrorUrl: string;
  readonly sandboxUrl: string;
  readonly sandbox: Sandbox;
  /** The sandbox account's API keys (its /api/ endpoints take them). */
  readonly gatewayKeys: { readonly publicKey: string; readonly privateKey: string };
  readonly sql: Sql;
}

export interface DemoResult {
  readonly seed: number;
  /**
   * 0 when the mirror equals the sandbox after reconciliation and the books tie out (every
   * record, and their totals with the sandbox's balance), else 1.
   */
  readonly exitCode: 0 | 1;
  readonly drive: DriveReport;
  readonly deliveries: DeliverySummary;
  readonly inbox: InboxSummary;
  /** The sandbox's records at the end: the truth both comparisons were made against. */
  readonly truth: Snapshot;
  readonly before: Comparison;
  readonly after: Comparison;
  readonly pass: PassSummary;
  /** Records missing from the mirror that the demo reconciled one by one after the pass. */
  readonly missingReconciled: number;
  /** reconciliation_discrepancies rows recorded by the demo's passes. */
  readonly discrepancies: number;
  /** The books at the end: `books check` and their totals against the sandbox's balance. */
  readonly books: BooksSummary;
  readonly timings: {
    readonly driveMs: number;
    readonly drainMs: number;
    readonly reconcileMs: number;
    readonly totalMs: number;
  };
}

const SELLER_USER_ID = 4242;

export async function runDemo(settings: DemoSettings): Promise<DemoResult> {
  const options = demoOptionsSchema.parse({
    sales: settings.sales,
    withdrawals: settings.withdrawals,
    seed: settings.seed,
    faults: settings.faults,
  });
  const output = settings.output ?? (() => undefined);
  const progress = settings.progress ?? NO_PROGRESS;
  const signal = settings.signal;
  const started = Date.now();

  const scenario = buildScenario(options);
  const postbackSecret = randomBytes(24).toString('base64url');
  const webhookToken = randomBytes(24).toString('base64url');
  const keys = generateKeyPair();
  const queuePrefix = settings.queuePrefix ?? `paymirror-demo-${randomBytes(4).toString('hex')}`;
  const adminToken = settings.adminToken ?? randomBytes(24).toString('base64url');
  const logger = createLogger({
    level: settings.logLevel ?? 'silent',
    secrets: [postbackSecret, webhookToken, keys.privateKey, keys.publicKey, adminToken],
    base: { service: 'paymirror-demo' },
    ...(settings.logDestination ? { destination: settings.logDestination } : {}),
  });

  output(
    `paymirror demo: seed ${options.seed}, ${options.sales} sales over ` +
      `${Math.min(options.sales, SALE_PATHS.length)} of ${SALE_PATHS.length} paths, ` +
      `${options.withdrawals} withdrawals, faults ${
        options.faults
          ? `on (duplicate ${pct(DEMO_FAULTS.duplicate)}, reorder ${pct(DEMO_FAULTS.reorder)}, ` +
            `drop ${pct(DEMO_FAULTS.drop)})`
          : 'off'
      }\n\n`,
  );

  let database: Database | null = null;
  let sandbox: Sandbox | null = null;
  let paymirror: RunningPaymirror | null = null;
  try {
    await runMigrations(settings.databaseUrl);
    database = createDatabase(settings.databaseUrl, { max: 4, applicationName: 'paymirror-demo' });
    await emptyAllTables(database.sql);

    sandbox = createSandbox({
      ...keys,
      postbackSecret,
      userId: SELLER_USER_ID,
      webhookUrl: null,
      faults: options.faults ? DEMO_FAULTS : {},
      random: seededRandom(options.seed),
      logger: logger.child({ service: 'paymirror-demo-sandbox' }),
      retryBaseMs: 100,
      deliveryConcurrency: 8,
      reorderMaxHoldMs: 250,
      deliveryLogLimit: 1_000_000,
    });
    const { url: sandboxUrl } = await sandbox.listen(0);

    const config = paymirrorConfig({
      databaseUrl: settings.databaseUrl,
      redisUrl: settings.redisUrl,
      queuePrefix,
      postbackSecret,
      webhookToken,
      sandboxUrl,
      keys,
      adminToken,
      logLevel: settings.logLevel ?? 'silent',
    });
    paymirror = await startPaymirror(config, parseRoles('all'), logger);
    await setWebhookUrl(sandboxUrl, `${paymirror.url}/webhooks/${webhookToken}`);
    progress.note(`sandbox gateway on ${sandboxUrl}, paymirror on ${paymirror.url}`);

    const gateway = gatewayClientFor(config, null, null);
    if (!gateway) throw new DemoError('no gateway client: GATEWAY_* not configured');
    const reconcileDeps: ReconcileDeps = {
      sql: database.sql,
      gateway,
      policy: config.watchPolicy,
      logger,
      onProgress: (done, total) => progress.step('reconciling', done, total),
    };

    // 1. Drive the scenario.
    const driveStarted = Date.now();
    const state = sandbox.state;
    const drive = await driveScenario(scenario, {
      sandboxUrl,
      postbackUrl: `${paymirror.url}/postbacks`,
      sql: database.sql,
      gateway,
      policy: config.watchPolicy,
      logger,
      availableCents: () => state.balanceCents,
      progress,
      ...(signal ? { signal } : {}),
    });
    const driveMs = Date.now() - driveStarted;

    // 2. Wait until every notification has been delivered and applied.
    const drainStarted = Date.now();
    await waitForDrain(sandbox, database.sql, settings.drainTimeoutMs ?? 120_000, progress, signal);
    const drainMs = Date.now() - drainStarted;
    const inbox = await inboxSummary(database.sql);
    const deliveries = summarizeDeliveries(state.deliveries);
    progress.note(
      `pipeline drained in ${seconds(drainMs)}: ${inbox.processed} inbox rows processed, ` +
        `${inbox.quarantined} quarantined, ${inbox.failed} failed; ` +
        `${inbox.duplicatesAbsorbed} duplicate deliveries absorbed`,
    );

    // 3. Truth vs mirror, before reconciliation.
    const truth = truthSnapshot(state, SELLER_USER_ID);
    const before = compareSnapshots(truth, await mirrorSnapshot(database.sql));
    output(formatComparison('BEFORE RECONCILIATION', before));
    if (!before.matches) {
      output(
        '  (expected: notifications the sandbox dropped, and card sales still awaiting the\n' +
          '   processor, EM_PROCESSAMENTO, which no notification carries: docs/gateway.md 6.2)\n',
      );
    }
    output('\n');

    // 4. One pass over every open row; then any record the mirror never heard of.
    signal?.throwIfAborted();
    const reconcileStarted = Date.now();
    const pass = await reconcile(reconcileDeps, { kind: 'all-open' }, 'demo');
    const runIds = [pass.runId];
    const afterPass = compareSnapshots(truth, await mirrorSnapshot(database.sql));
    const missing = [...afterPass.sales.mismatches, ...afterPass.withdrawals.mismatches].filter(
      (mismatch) => mismatch.kind === 'missing_in_mirror',
    );
    for (const record of missing) {
      const one = await reconcile(
        reconcileDeps,
        { kind: record.resource, id: record.id },
        'demo:missing',
      );
      runIds.push(one.runId);
    }
    const reconcileMs = Date.now() - reconcileStarted;
    const discrepancies = await discrepancyCount(database.sql, runIds);
    const after =
      missing.length > 0 ? compareSnapshots(truth, await mirrorSnapshot(database.sql)) : afterPass;
    output(formatComparison('AFTER RECONCILIATION', after));
    output('\n');

    // 5. The books: every record ties out, and their totals are the gateway's balance.
    const books = await booksSummary(database.sql, {
      availableCents: state.balanceCents,
      reserveCents: state.reserveCents,
    });
    output(formatBooks(books));
    output('\n');

    const exitCode = after.matches && books.tiesOut && books.matchesGateway ? 0 : 1;
    const totalMs = Date.now() - started;
    const result: DemoResult = {
      seed: options.seed,
      exitCode,
      drive,
      deliveries,
      inbox,
      truth,
      before,
      after,
      pass,
      missingReconciled: missing.length,
      discrepancies,
      books,
      timings: { driveMs, drainMs, reconcileMs, totalMs },
    };
    output(`${summaryLine(result)}\n`);
    output(`timings: ${timingsLine(result)}\n`);
    output(nextSteps(settings.databaseUrl));
    const consoleUrl = `${paymirror.metricsUrl}/console`;
    output(
      consoleLines(consoleUrl, settings.adminTokenHint ?? 'the admin token given to the demo', {
        kept: settings.whileRunning !== undefined,
      }),
    );
    await settings.whileRunning?.({
      consoleUrl,
      adminToken,
      paymirrorUrl: paymirror.url,
      sandboxUrl,
      sandbox,
      gatewayKeys: keys,
      sql: database.sql,
    });
    return result;
  } finally {
    await cleanUp(
      [
        ['sandbox', () => sandbox?.close()],
        ['paymirror', () => paymirror?.close()],
        ['database pool', () => database?.close()],
        ['redis keys', () => deleteRedisKeys(settings.redisUrl, queuePrefix)],
      ],
      progress,
    );
  }
}

function paymirrorConfig(input: {
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  postbackSecret: string;
  webhookToken: string;
  sandboxUrl: string;
  keys: { publicKey: string; privateKey: string };
  adminToken: string;
  logLevel: string;
}): Config {
  return parseConfig({
    NODE_ENV: 'development',
    DATABASE_URL: input.databaseUrl,
    REDIS_URL: input.redisUrl,
    QUEUE_PREFIX: input.queuePrefix,
    PORT: '0',
    HOST: '127.0.0.1',
    // The admin listener (the console, bull-board, /metrics) on a free loopback port.
    METRICS_PORT: '0',
    METRICS_HOST: '127.0.0.1',
    ADMIN_TOKEN: input.adminToken,
    POSTBACK_SECRETS: input.postbackSecret,
    WEBHOOK_TOKENS: input.webhookToken,
    SELLER_USER_ID: String(SELLER_USER_ID),
    // Every webhook is confirmed with a GET: a rate limit meant for a remote gateway would
    // only slow the demo down.
    GATEWAY_BASE_URL: input.sandboxUrl,
    GATEWAY_PUBLIC_KEY: input.keys.publicKey,
    GATEWAY_PRIVATE_KEY: input.keys.privateKey,
    GATEWAY_MAX_RPS: '1000',
    // The demo runs its pass explicitly.
    RECONCILE_INTERVAL_SECONDS: '86400',
    LOG_LEVEL: input.logLevel,
    SWEEP_INTERVAL_SECONDS: '1',
    SWEEP_AFTER_SECONDS: '5',
    JOB_ATTEMPTS: '8',
    JOB_BACKOFF_MS: '50',
    DB_POOL_MAX: '10',
    SHUTDOWN_TIMEOUT_SECONDS: '5',
  });
}

async function setWebhookUrl(sandboxUrl: string, webhookUrl: string): Promise<void> {
  const response = await fetch(`${sandboxUrl}/_sandbox/config`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ webhookUrl }),
  });
  const text = await response.text();
  if (response.status !== 200) {
    throw new DemoError(`sandbox refused the webhook URL: HTTP ${response.status} ${text}`);
  }
}

async function reconcile(
  deps: ReconcileDeps,
  selection: Parameters<typeof runReconcilePass>[1],
  trigger: string,
): Promise<PassSummary> {
  const summary = await withPassLock(deps.sql, 60_000, () =>
    runReconcilePass(deps, selection, trigger),
  );
  if (!summary) throw new DemoError('no reconciliation pass ran');
  return summary;
}

/** Sandbox idle (every delivery answered or abandoned), then no inbox row still pending. */
async function waitForDrain(
  sandbox: Sandbox,
  sql: Sql,
  timeoutMs: number,
  progress: Progress,
  signal: AbortSignal | undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await beforeDeadline(sandbox.idle(), deadline, signal, () => {
    const pending = sandbox.state.deliveries.filter((e) => e.outcome === 'retrying').length;
    return `the sandbox still had deliveries under way (${pending} retrying)`;
  });
  for (;;) {
    const { pending, total } = await inboxTotals(sql);
    progress.step('applying notifications', total - pending, total);
    if (pending === 0) return;
    if (Date.now() > deadline) {
      throw new DemoError(
        `the pipeline did not drain within ${seconds(timeoutMs)}: ` +
          `${pending} inbox rows still pending`,
      );
    }
    signal?.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function beforeDeadline(
  promise: Promise<void>,
  deadline: number,
  signal: AbortSignal | undefined,
  describe: () => string,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new DemoError(`timed out: ${describe()}`)),
          Math.max(0, deadline - Date.now()),
        );
        onAbort = () => reject(signal?.reason ?? new DemoError('aborted'));
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (found.length > 0) await redis.del(...found);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** Runs every step even when one fails; a failure is reported, never thrown over the result. */
async function cleanUp(
  steps: readonly (readonly [string, () => Promise<unknown> | undefined])[],
  progress: Progress,
): Promise<void> {
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (error) {
      progress.note(
        `cleanup: closing the ${name} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

function summaryLine(result: DemoResult): string {
  const refused = result.drive.refusedCashouts;
  const refusedTypes = [...new Set(refused.map((r) => r.errorType ?? `HTTP ${r.status}`))];
  const d = result.deliveries;
  const p = result.pass;
  return (
    `summary: ${result.truth.sales.length} sales, ${result.truth.withdrawals.length} withdrawals` +
    (refused.length > 0
      ? ` (+${refused.length} cashouts refused: ${refusedTypes.join(', ')})`
      : '') +
    `; notifications ${d.notifications}: ${d.delivered} deliveries, ${d.duplicated} duplicated, ` +
    `${d.reordered} reordered, ${d.dropped} dropped; reconciliation run ${p.runId} ${p.status}: ` +
    `${p.checked} checked, ${p.corrected} corrected, ${result.discrepancies} discrepancies recorded` +
    (result.missingReconciled > 0 ? `, ${result.missingReconciled} missing records fetched` : '') +
    `; mismatching records ${result.before.mismatchingRecords} before, ` +
    `${result.after.mismatchingRecords} after; books ${result.books.tiesOut ? 'tie out' : 'do not tie out'}` +
    ` → ${result.exitCode === 0 ? 'OK' : 'FAILED'}`
  );
}

function timingsLine(result: DemoResult): string {
  const t = result.timings;
  return (
    `drive ${seconds(t.driveMs)}, drain ${seconds(t.drainMs)}, ` +
    `reconcile ${seconds(t.reconcileMs)}, total ${seconds(t.totalMs)}`
  );
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function pct(probability: number): string {
  return `${Math.round(probability * 100)} %`;
}

/** Where the console is, and for how long. */
function consoleLines(url: string, tokenHint: string, options: { kept: boolean }): string {
  return (
    `\nThe console (read-only, in the browser): ${url}\n` +
    `  sign in with ${tokenHint}\n` +
    (options.kept
      ? '  paymirror and the sandbox keep running until Ctrl-C.\n'
      : '  it stops with the demo: `npm run demo -- --keep` keeps paymirror and the sandbox\n' +
        '  running until Ctrl-C.\n')
  );
}

/** What to look at next: the mirror the demo left behind (its password, if any, left out). */
function nextSteps(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.password = '';
  const env = `DATABASE_URL=${url.toString()}`;
  return (
    `\nThe mirror stays in ${url.pathname.slice(1)}. Next:\n` +
    `  ${env} bin/paymirror report disputes     every MED and chargeback, how each ended\n` +
    `  ${env} bin/paymirror report daily        totals per day, method and status\n` +
    `  ${env} bin/paymirror books report        the journal: money moved per day, account and kind\n` +
    `  ${env} bin/paymirror inbox list          the notifications as received\n` +
    `  and to run it for real: README, "URLs to configure at the gateway", and docs/configuration.md.\n`
  );
}
