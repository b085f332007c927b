import type { Command } from 'commander';
import { exitOnError, loadConfig } from './environment.js';

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('create the database if needed and apply pending migrations')
    .action(async () => {
      try {
        const config = loadConfig();
        const [{ redactUrl, runMigrations }, { requirePostgres }] = await Promise.all([
          import('../db/migrate.js'),
          import('../runtime/dependencies.js'),
        ]);
        await requirePostgres(config.databaseUrl);
        await runMigrations(config.databaseUrl);
        process.stdout.write(`migrations applied to ${redactUrl(config.databaseUrl)}\n`);
      } catch (error) {
        exitOnError(error);
      }
    });
}
