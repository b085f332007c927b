import type { Command } from 'commander';
import type { Config } from '../config/config.js';
import type { GeneratedSecrets } from '../config/developmentSecrets.js';
import { exitOnError, loadConfig, loggerFor } from './environment.js';

export function registerStartCommand(program: Command): void {
  program
    .command('start')
    .description('run paymirror: ingress, worker and scheduler (all by default)')
    .option(
      '--role <roles>',
      'all | ingress | worker | scheduler (or a comma-separated list)',
      'all',
    )
    .option('--no-migrate', 'do not apply migrations before starting')
    .action(async (options: { role: string; migrate: boolean }) => {
      try {
        await start(options);
      } catch (error) {
        exitOnError(error);
      }
    });
}

async function start(options: { role: string; migrate: boolean }): Promise<void> {
  // Listen before anything slow (migrations, connections): a SIGTERM or Ctrl-C during start-up
  // ends it at once (nothing is acknowledged before the server runs, and an interrupted
  // migration rolls back); once running, it drains.
  const signalled = nextTerminationSignal();
  const running = await Promise.race([
    startUp(options),
    signalled.then((signal) => ({ stoppedBy: signal })),
  ]);
  if ('stoppedBy' in running) {
    process.stderr.write(`paymirror: stopped by ${running.stoppedBy} during start-up\n`);
    process.exit(0);
  }
  const { paymirror, logger } = running;
  const signal = await signalled;
  logger.info({ signal }, 'draining');
  try {
    await paymirror.close();
  } catch (error) {
    logger.error({ err: error }, 'drain failed');
    process.exit(1);
  }
  process.exit(0);
}

async function startUp(options: { role: string; migrate: boolean }) {
  // Loaded here, not at the top: the other commands (and --help) never load the runtime.
  const [
    { ensureNotificationSecrets },
    { developmentSecretsFile },
    { redactUrl, runMigrations },
    { parseRoles },
    { startPaymirror },
    { postgresDriverGuarded, UNGUARDED_POSTGRES_DRIVER },
    { requirePostgres },
    { waitForRedis },
  ] = await Promise.all([
    import('../config/developmentSecrets.js'),
    import('../config/developmentSecretsFile.js'),
    import('../db/migrate.js'),
    import('../runtime/roles.js'),
    import('../runtime/startPaymirror.js'),
    import('../runtime/postgresDriverGuard.js'),
    import('../runtime/dependencies.js'),
    import('../runtime/waitForRedis.js'),
  ]);
  const roles = parseRoles(options.role);
  const { config, generated } = ensureNotificationSecrets(loadConfig(), developmentSecretsFile());
  const logger = loggerFor(config);
  if (generated) printDevelopmentBanner(config, generated);
  if (!postgresDriverGuarded()) logger.warn(UNGUARDED_POSTGRES_DRIVER);
  if (!config.gateway && roles.has('worker')) {
    logger.warn(
      config.unconfirmedWebhooks === 'hold'
        ? 'no gateway API keys: unsigned webhooks are stored and held out of the mirror (UNCONFIRMED_WEBHOOKS=hold): only signed postbacks change it'
        : 'no gateway API keys (GATEWAY_BASE_URL, GATEWAY_PUBLIC_KEY, GATEWAY_PRIVATE_KEY): unsigned webhooks are applied as received, NOT confirmed with the gateway',
    );
  }
  if (config.sellerUserId === null && roles.has('ingress')) {
    logger.warn('SELLER_USER_ID is not set: webhook userId is not checked');
  }
  // A wrong password or a host that never answers is one line and an exit, not a stack trace.
  await requirePostgres(config.databaseUrl);
  await waitForRedis(config.redis, logger);
  if (options.migrate && config.migrateOnStart) {
    logger.info({ database: redactUrl(config.databaseUrl) }, 'applying migrations');
    await runMigrations(config.databaseUrl);
  }
  return { paymirror: await startPaymirror(config, roles, logger), logger };
}

function nextTerminationSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
}

/**
 * Prints what development mode supplied so a newcomer can configure the gateway, where it is
 * kept, and how to keep it for good. A secret the operator configured is never printed: it is
 * named, and the webhook URL shows the variable instead.
 */
function printDevelopmentBanner(config: Config, generated: GeneratedSecrets): void {
  const line = '!'.repeat(78);
  const shown = (name: string, value: string | null) =>
    `!!   ${name}=${value ?? '(configured, not shown)'}`;
  const webhookToken = generated.webhookToken ?? '<one of your WEBHOOK_TOKENS>';
  const kept = generated.file
    ? [
        generated.reused
          ? `!! DEVELOPMENT MODE: paymirror reuses the secrets it made up earlier, kept in ${generated.file}`
          : `!! DEVELOPMENT MODE: paymirror made up what was not configured and keeps it in ${generated.file}`,
        '!! (git-ignored; reused at every start, so the URLs below keep working after a restart).',
        `!! To keep them for good, copy the lines of ${generated.file} into .env (or your secret`,
        '!! store): production never reads that file.',
      ]
    : ['!! DEVELOPMENT MODE: paymirror made up what was not configured, for this run only.'];
  process.stderr.write(
    [
      line,
      ...kept,
      '!! Never run like this in production',
      '!! (with NODE_ENV=production paymirror refuses to start without them).',
      shown('POSTBACK_SECRETS', generated.postbackSecret),
      shown('WEBHOOK_TOKENS', generated.webhookToken),
      '!! URLs to configure at the gateway:',
      `!!   postbackUrl (per sale):     ${config.publicUrl}/postbacks`,
      `!!   permanent webhook (panel):  ${config.publicUrl}/webhooks/${webhookToken}`,
      line,
      '',
    ].join('\n'),
  );
}
