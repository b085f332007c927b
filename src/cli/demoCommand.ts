import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { pino } from 'pino';
import { z } from 'zod';
import { DEMO_FAULTS, demoOptionsSchema } from '../demo/options.js';
import { environment, exitOnError } from './environment.js';

const DEFAULT_DEMO_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/paymirror_demo';
const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/paymirror';
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const CLEANUP_DEADLINE_MS = 10_000;
/** Where the demo keeps the console's token it made up (data/ is git-ignored), reused next time. */
const ADMIN_TOKEN_FILE = 'data/demo-admin-token';

const demoEnvSchema = z.object({
  DEMO_DATABASE_URL: z
    .string()
    .refine((v) => /^postgres(ql)?:\/\//.test(v) && URL.canParse(v), 'must be a postgres:// URL')
    .default(DEFAULT_DEMO_DATABASE_URL),
  DATABASE_URL: z.string().default(DEFAULT_DATABASE_URL),
  REDIS_URL: z
    .string()
    .refine((v) => /^rediss?:\/\//.test(v) && URL.canParse(v), 'must be a redis:// URL')
    .default(DEFAULT_REDIS_URL),
  DEMO_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('silent'),
  DEMO_ADMIN_TOKEN: z.string().min(16, 'needs at least 16 characters').optional(),
});

interface DemoFlags {
  sales: string;
  withdrawals: string;
  seed: string;
  faults: boolean;
  keep?: boolean;
}

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      'run the sandbox gateway and paymirror against the local Postgres and Redis, drive a ' +
        'scenario with faults, reconcile, and compare the mirror with the sandbox',
    )
    .option('--sales <n>', 'sales to create', '200')
    .option('--withdrawals <n>', 'withdrawals to request', '10')
    .option('--seed <n>', 'seed of the scenario and of the fault decisions', '42')
    .option(
      '--no-faults',
      `deliver every notification once, in order (default: duplicate ${DEMO_FAULTS.duplicate}, ` +
        `reorder ${DEMO_FAULTS.reorder}, drop ${DEMO_FAULTS.drop})`,
    )
    .option(
      '--keep',
      'keep paymirror (and its console) and the sandbox running after the report, until Ctrl-C',
    )
    .addHelpText(
      'after',
      `\nEnvironment: DEMO_DATABASE_URL (default ${DEFAULT_DEMO_DATABASE_URL}; its tables are ` +
        `emptied), REDIS_URL (default ${DEFAULT_REDIS_URL}), DEMO_LOG_LEVEL (default silent; e.g. warn to see paymirror's warnings on stderr), ` +
        `DEMO_ADMIN_TOKEN (the console's token; default: one made up and kept in ${ADMIN_TOKEN_FILE}).\n`,
    )
    .action(async (flags: DemoFlags) => {
      const env = parseOrExit(demoEnvSchema, environment(), 'environment');
      const { keep, ...demoFlags } = flags;
      const options = parseOrExit(demoOptionsSchema, demoFlags, 'options');
      const admin = env.DEMO_ADMIN_TOKEN
        ? { token: env.DEMO_ADMIN_TOKEN, hint: 'DEMO_ADMIN_TOKEN' }
        : { token: demoAdminToken(), hint: `the admin token in ${ADMIN_TOKEN_FILE}` };
      if (sameDatabase(env.DEMO_DATABASE_URL, env.DATABASE_URL)) {
        process.stderr.write(
          'paymirror demo: DEMO_DATABASE_URL names the same database as DATABASE_URL; the demo ' +
            'empties its database, so give it one of its own\n',
        );
        process.exit(2);
      }

      // First Ctrl-C: stop driving and clean up, for at most a few seconds; a second one exits
      // at once.
      const abort = new AbortController();
      const onSignal = () => {
        if (abort.signal.aborted) process.exit(130);
        process.stderr.write(
          '\npaymirror demo: stopping and cleaning up (Ctrl-C again to quit now)\n',
        );
        abort.abort(new Error('interrupted'));
        setTimeout(() => {
          process.stderr.write('paymirror demo: cleanup did not finish in time; quitting\n');
          process.exit(130);
        }, CLEANUP_DEADLINE_MS).unref();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      try {
        // Loaded only when the demo runs (it brings the sandbox and the whole pipeline).
        const [{ runDemo }, { createProgress }, { requirePostgres, requireRedis }] =
          await Promise.all([
            import('../demo/runDemo.js'),
            import('../demo/progress.js'),
            import('../runtime/dependencies.js'),
          ]);
        await Promise.all([
          requirePostgres(env.DEMO_DATABASE_URL, 'DEMO_DATABASE_URL'),
          requireRedis({ kind: 'single', url: env.REDIS_URL }),
        ]);
        const result = await runDemo({
          databaseUrl: env.DEMO_DATABASE_URL,
          redisUrl: env.REDIS_URL,
          ...options,
          logLevel: env.DEMO_LOG_LEVEL,
          logDestination: pino.destination(2),
          output: (text) => process.stdout.write(text),
          progress: createProgress(process.stderr),
          signal: abort.signal,
          adminToken: admin.token,
          adminTokenHint: admin.hint,
          ...(keep
            ? {
                whileRunning: () =>
                  new Promise<void>((resolve) =>
                    abort.signal.aborted
                      ? resolve()
                      : abort.signal.addEventListener('abort', () => resolve(), { once: true }),
                  ),
              }
            : {}),
        });
        process.exitCode = result.exitCode;
      } catch (error) {
        if (abort.signal.aborted) {
          process.stderr.write('paymirror demo: interrupted\n');
          process.exit(130);
        }
        exitOnError(error);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}

/** The token kept in ADMIN_TOKEN_FILE, or a new one written there (readable by its owner only). */
function demoAdminToken(): string {
  if (existsSync(ADMIN_TOKEN_FILE)) {
    const kept = readFileSync(ADMIN_TOKEN_FILE, 'utf8').trim();
    if (/^[A-Za-z0-9_-]{16,}$/.test(kept)) return kept;
  }
  const token = randomBytes(24).toString('base64url');
  mkdirSync(dirname(ADMIN_TOKEN_FILE), { recursive: true });
  writeFileSync(ADMIN_TOKEN_FILE, `${token}\n`, { mode: 0o600 });
  return token;
}

function parseOrExit<T extends z.ZodType>(schema: T, input: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  process.stderr.write(`paymirror demo: invalid ${what}:\n${z.prettifyError(parsed.error)}\n`);
  process.exit(2);
}

function sameDatabase(a: string, b: string): boolean {
  try {
    const left = new URL(a);
    const right = new URL(b);
    return (
      left.hostname === right.hostname &&
      (left.port || '5432') === (right.port || '5432') &&
      left.pathname === right.pathname
    );
  } catch {
    return false;
  }
}
