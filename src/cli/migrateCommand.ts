import type { Command } from 'commander';
import { exitOnError, loadConfig } from './environment.js';
import { formatOption, printResult, type OutputFormat } from './format.js';

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('create the database if needed and apply pending migrations')
    .addOption(formatOption())
    .action(async (options: { format: OutputFormat }) => {
      try {
        const config = loadConfig();
        const [{ redactUrl, runMigrations }, { requirePostgres }] = await Promise.all([
          import('../db/migrate.js'),
          import('../runtime/dependencies.js'),
        ]);
        await requirePostgres(config.databaseUrl);
        await runMigrations(config.databaseUrl);
        const database = redactUrl(config.databaseUrl);
        printResult(
          options.format,
          { migrated: true, database },
          () => `migrations applied to ${database}\n`,
        );
      } catch (error) {
        exitOnError(error);
      }
    });
}
