import { Command, InvalidArgumentError, Option } from 'commander';
import { z } from 'zod';
import { dayRangeSchema, daySchema } from '../reports/dayRange.js';
import { REPORT_FORMATS, type ReportFormat } from '../reports/render.js';
import { exitOnError } from './environment.js';

function parseDay(value: string): string {
  const parsed = daySchema.safeParse(value);
  if (!parsed.success) {
    throw new InvalidArgumentError(parsed.error.issues[0]?.message ?? 'expected YYYY-MM-DD');
  }
  return parsed.data;
}

const instantSchema = z.iso.datetime({ offset: true }).transform((text) => new Date(text));

function parseInstant(value: string): Date {
  const parsed = instantSchema.safeParse(value);
  if (!parsed.success) {
    throw new InvalidArgumentError(
      'expected an ISO 8601 time with its offset, e.g. 2026-11-30T23:59:59-03:00',
    );
  }
  return parsed.data;
}

const reasonSchema = z.string().trim().min(3, 'say why, in a few words').max(500);

function parseReason(value: string): string {
  const parsed = reasonSchema.safeParse(value);
  if (!parsed.success)
    throw new InvalidArgumentError(parsed.error.issues[0]?.message ?? 'bad reason');
  return parsed.data;
}

interface RangeOptions {
  from?: string;
  to?: string;
}

function rangeOf(
  options: RangeOptions,
  command: Command,
): { from: string | null; to: string | null } {
  const range = dayRangeSchema.safeParse({ from: options.from ?? null, to: options.to ?? null });
  if (!range.success) command.error(`error: ${range.error.issues[0]?.message ?? 'bad range'}`);
  return range.data;
}

/** Runs a books action, its known failures printed as one line. */
async function run(action: (actions: typeof import('./booksActions.js')) => Promise<void>) {
  try {
    await action(await import('./booksActions.js'));
  } catch (error) {
    exitOnError(error);
  }
}

/** `paymirror books …`: the journal (docs/finance.md, "The journal"). */
export function registerBooksCommands(program: Command): void {
  const books = program
    .command('books')
    .description('the books: the journal of money moves, closing days, reports (docs/finance.md)');

  books
    .command('check')
    .description(
      'exit 0 when every record ties out and no closed day changed; 1 listing what does not',
    )
    .action(() => run((actions) => actions.checkCommand()));

  books
    .command('close')
    .description('close every day up to and including <day> (America/Sao_Paulo)')
    .argument('<day>', 'YYYY-MM-DD', parseDay)
    .action((day: string) => run((actions) => actions.closeCommand(day)));

  books
    .command('reopen')
    .description('reopen <day> and every later closed day, recording why')
    .argument('<day>', 'YYYY-MM-DD', parseDay)
    .requiredOption('--reason <text>', 'why the days are reopened (recorded)', parseReason)
    .action((day: string, options: { reason: string }) =>
      run((actions) => actions.reopenCommand(day, options.reason)),
    );

  books
    .command('report')
    .description('entries and amount per day, account, kind and payment method')
    .option('--from <day>', 'first day, YYYY-MM-DD in São Paulo time (inclusive)', parseDay)
    .option('--to <day>', 'last day, YYYY-MM-DD in São Paulo time (inclusive)', parseDay)
    .addOption(
      new Option('--format <format>', 'table (reais), csv or json (centavos)')
        .choices(REPORT_FORMATS)
        .default('table'),
    )
    .action((options: RangeOptions & { format: ReportFormat }, command: Command) =>
      run((actions) => actions.reportCommand(rangeOf(options, command), options.format)),
    );

  books
    .command('export')
    .description('every entry of the days as CSV, for accounting software (docs/finance.md)')
    .option('--from <day>', 'first day, YYYY-MM-DD in São Paulo time (inclusive)', parseDay)
    .option('--to <day>', 'last day, YYYY-MM-DD in São Paulo time (inclusive)', parseDay)
    .action((options: RangeOptions, command: Command) =>
      run((actions) => actions.exportCommand(rangeOf(options, command))),
    );

  books
    .command('balance')
    .description('what the books say was available and reserved at <time>')
    .requiredOption(
      '--at <time>',
      'ISO 8601 with offset, e.g. 2026-11-30T23:59:59-03:00',
      parseInstant,
    )
    .addOption(
      new Option('--format <format>', 'output format').choices(['table', 'json']).default('table'),
    )
    .action((options: { at: Date; format: 'table' | 'json' }) =>
      run((actions) => actions.balanceCommand(options.at, options.format)),
    );
}
