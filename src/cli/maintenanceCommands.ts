import type { Command } from 'commander';
import { exitOnError, loadConfig } from './environment.js';
import {
  formatOption,
  parseDuration,
  printRecords,
  printResult,
  type OutputFormat,
} from './format.js';

export function registerMaintenanceCommands(program: Command): void {
  program
    .command('doctor')
    .description(
      'check config, Postgres, Redis, migrations and gateway keys; print the URLs to configure',
    )
    .addOption(formatOption())
    .action(async (options: { format: OutputFormat }) => {
      try {
        const config = loadConfig();
        const [
          { runChecks },
          { gatewayClientFor },
          { createDatabase },
          { createProbeRedis },
          { postgresDriverGuarded },
        ] = await Promise.all([
          import('../operations/doctor.js'),
          import('../runtime/gatewayClient.js'),
          import('../db/client.js'),
          import('../runtime/redis.js'),
          import('../runtime/postgresDriverGuard.js'),
        ]);
        const database = createDatabase(config.databaseUrl, { max: 1 });
        const redis = createProbeRedis(config.redis, 3000);
        // The client's first error says why it could not connect; later ones only that it did not.
        let connectError: unknown = null;
        redis.on('error', (error: unknown) => (connectError ??= error));
        let checks;
        try {
          await redis.connect().catch((error: unknown) => (connectError ??= error));
          checks = await runChecks({
            config,
            sql: database.sql,
            redis,
            redisConnectError: connectError,
            gateway: gatewayClientFor(config, null, redis.status === 'ready' ? redis : null),
            postgresDriverGuarded: postgresDriverGuarded(),
          });
        } finally {
          redis.disconnect();
          await database.close();
        }
        printRecords(options.format, checks, ['name', 'status', 'detail']);
        if (options.format === 'table') {
          process.stdout.write(
            `\nURLs to configure at the gateway:\n  postbackUrl (per sale):    ${config.publicUrl}/postbacks\n` +
              `  permanent webhook:         ${config.publicUrl}/webhooks/<one of WEBHOOK_TOKENS>\n`,
          );
        }
        if (checks.some((c) => c.status === 'fail')) process.exit(1);
      } catch (error) {
        exitOnError(error);
      }
    });

  program
    .command('prune')
    .description(
      'delete old processed inbox rows and old rejected deliveries (never mirror or history rows)',
    )
    .requiredOption('--older-than <duration>', 'e.g. 90d', parseDuration)
    .option('--dry-run', 'count what would be deleted; delete nothing')
    .addOption(formatOption())
    .action(async (options: { olderThan: number; dryRun?: boolean; format: OutputFormat }) => {
      try {
        const [{ pruneOld, countPrunable }, { withDatabase }] = await Promise.all([
          import('../inbox/prune.js'),
          import('./storageContext.js'),
        ]);
        const summary = await withDatabase(({ database }) =>
          (options.dryRun ? countPrunable : pruneOld)(database.sql, options.olderThan),
        );
        printResult(
          options.format,
          { dryRun: options.dryRun === true, ...summary },
          () =>
            `${options.dryRun ? 'would prune' : 'pruned'} ${summary.inboxRows} processed inbox row(s), ${summary.dedupeKeys} dedupe key(s), ${summary.rejected} rejected deliver(ies)\n`,
        );
      } catch (error) {
        exitOnError(error);
      }
    });
}
