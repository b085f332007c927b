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
  // Listen before anything slow (migrations, connections): a SIGTERM that comes during
  // start-up waits for it to finish and then drains, instead of killing the process mid-way.
  const signalled = nextTerminationSignal();
  // Loaded here, not at the top: the other commands (and --help) never load the runtime.
  const [
    { ensureNotificationSecrets },
    { developmentSecretsFile },
    { redactUrl, runMigrations },
    { parseRoles },
    { startPaymirror },
    { postgresDriverGuarded, UNGUARDED_POSTGRES_DRIVER },
  ] = await Promise.all([
    import('../config/developmentSecrets.js'),
    import('../config/developmentSecretsFile.js'),
    import('../db/migrate.js'),
    import('../runtime/roles.js'),
    import('../runtime/startPaymirror.js'),
    import('../runtime/postgresDriverGuard.js'),
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
  if (options.migrate && config.migrateOnStart) {
    logger.info({ database: redactUrl(config.databaseUrl) }, 'applying migrations');
    await runMigrations(config.databaseUrl);
  }
  const running = await startPaymirror(config, roles, logger);
  const signal = await signalled;
  logger.info({ signal }, 'draining');
  try {
    await running.close();
  } catch (error) {
    logger.error({ err: error }, 'drain failed');
    process.exit(1);
  }
  process.exit(0);
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
