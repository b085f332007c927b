import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import { dayRangeSchema, daySchema } from '../reports/dayRange.js';
import { REPORT_NAMES, type ReportName } from '../reports/names.js';
import { REPORT_FORMATS, type ReportFormat } from '../reports/render.js';
import { exitOnError, loadConfig } from './environment.js';

function parseDay(value: string): string {
  const parsed = daySchema.safeParse(value);
  if (!parsed.success) {
    throw new InvalidArgumentError(parsed.error.issues[0]?.message ?? 'expected YYYY-MM-DD');
  }
  return parsed.data;
}

interface ReportOptions {
  from?: string;
  to?: string;
  format: ReportFormat;
}

export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .description('print a finance report from the mirror (views documented in docs/finance.md)')
    .addArgument(new Argument('<report>', 'which report').choices(REPORT_NAMES))
    .option('--from <day>', 'first day, YYYY-MM-DD in São Paulo time (inclusive)', parseDay)
    .option('--to <day>', 'last day, YYYY-MM-DD in São Paulo time (inclusive)', parseDay)
    .addOption(
      new Option('--format <format>', 'table (reais), csv or json (centavos)')
        .choices(REPORT_FORMATS)
        .default('table'),
    )
    .action(async (name: ReportName, options: ReportOptions, command: Command) => {
      const range = dayRangeSchema.safeParse({
        from: options.from ?? null,
        to: options.to ?? null,
      });
      if (!range.success) command.error(`error: ${range.error.issues[0]?.message ?? 'bad range'}`);
      let output: string;
      try {
        const [
          { createDatabase },
          { checkSchemaVersion },
          { REPORTS, renderReport, runReport },
          { requirePostgres },
        ] = await Promise.all([
          import('../db/client.js'),
          import('../db/schemaVersion.js'),
          import('../reports/index.js'),
          import('../runtime/dependencies.js'),
        ]);
        const report = REPORTS[name];
        const config = loadConfig();
        await requirePostgres(
          config.reportsDatabaseUrl,
          config.reportsDatabaseUrl === config.databaseUrl
            ? 'DATABASE_URL'
            : 'REPORTS_DATABASE_URL',
        );
        // Finance reads may go to a replica: they never write, and never migrate.
        const database = createDatabase(config.reportsDatabaseUrl, { max: 1 });
        try {
          await checkSchemaVersion(database.sql);
          const rows = await runReport(database.sql, report, range.data);
          output = renderReport(options.format, report.columns, rows);
        } finally {
          await database.close();
        }
      } catch (error) {
        exitOnError(error);
      }
      process.stdout.write(output);
    });
}
