import { Command, InvalidArgumentError } from 'commander';
import type { PassSummary } from '../reconciler/reconcilePass.js';
import type { PassSelection } from '../reconciler/selectCandidates.js';
import { exitOnError } from './environment.js';
import { formatOption, printResult, type OutputFormat } from './format.js';

/** How long `reconcile` waits for a pass another process is running. */
const WAIT_FOR_RUNNING_PASS_MS = 120_000;

export function parseId(value: string): number {
  if (!/^[0-9]{1,15}$/.test(value) || Number(value) < 1) {
    throw new InvalidArgumentError('expected a positive whole number');
  }
  return Number(value);
}

export function registerReconcileCommands(program: Command): void {
  const reconcile = program
    .command('reconcile')
    .description('compare the mirror with the gateway now, correct it, and print a summary')
    .option('--all-open', 'every non-final row (PAGO within its watch window included)')
    .addOption(formatOption())
    .action(async (options: { allOpen?: boolean; format: OutputFormat }) => {
      await runPass(
        options.allOpen ? { kind: 'all-open' } : { kind: 'due', limit: 10_000 },
        options.allOpen ? 'cli:all-open' : 'cli:due',
        options.format,
      );
    });
  reconcile
    .command('sale <id>')
    .description('reconcile one sale')
    .addOption(formatOption())
    .action(async (id: string, options: { format: OutputFormat }) =>
      runPass({ kind: 'sale', id: parseId(id) }, 'cli:sale', options.format),
    );
  reconcile
    .command('withdrawal <id>')
    .description('reconcile one withdrawal')
    .addOption(formatOption())
    .action(async (id: string, options: { format: OutputFormat }) =>
      runPass({ kind: 'withdrawal', id: parseId(id) }, 'cli:withdrawal', options.format),
    );

  program
    .command('backfill')
    .description('mirror records the gateway has and paymirror never heard of')
    .command('sales')
    .requiredOption('--from-id <id>', 'first sale id to probe', parseId)
    .requiredOption('--to-id <id>', 'last sale id to probe', parseId)
    .addOption(formatOption())
    .action(async (options: { fromId: number; toId: number; format: OutputFormat }) => {
      try {
        const [{ backfillSales }, { progressPrinter, withGatewayContext }] = await Promise.all([
          import('../reconciler/backfillSales.js'),
          import('./gatewayContext.js'),
        ]);
        const summary = await withGatewayContext(({ config, database, gateway, logger }) =>
          backfillSales(
            {
              sql: database.sql,
              gateway,
              policy: config.watchPolicy,
              logger,
              onProgress: progressPrinter('probed'),
            },
            options.fromId,
            options.toId,
          ),
        );
        const range = `backfill sales ${summary.fromId}..${summary.toId}`;
        const total = `${summary.found} mirrored, ${summary.skipped} skipped (404/403)`;
        printResult(options.format, summary, () =>
          summary.alreadyFinished
            ? `${range}: already finished by an earlier run (${total}); nothing probed now\n`
            : `${range} (resumed at ${summary.resumedAt}): this run ${summary.thisRun.found} ` +
              `mirrored, ${summary.thisRun.skipped} skipped; in all ${total}\n`,
        );
      } catch (error) {
        exitOnError(error);
      }
    });
}

async function runPass(
  selection: PassSelection,
  trigger: string,
  format: OutputFormat,
): Promise<void> {
  let summary: PassSummary | null;
  try {
    const [{ withPassLock }, { runReconcilePass }, { progressPrinter, withGatewayContext }] =
      await Promise.all([
        import('../reconciler/passLock.js'),
        import('../reconciler/reconcilePass.js'),
        import('./gatewayContext.js'),
      ]);
    summary = await withGatewayContext(({ config, database, gateway, logger }) =>
      withPassLock(database.sql, WAIT_FOR_RUNNING_PASS_MS, () =>
        runReconcilePass(
          {
            sql: database.sql,
            gateway,
            policy: config.watchPolicy,
            logger,
            onProgress: progressPrinter('checked'),
          },
          selection,
          trigger,
        ),
      ),
    );
  } catch (error) {
    exitOnError(error);
  }
  if (!summary) exitOnError(new Error('no pass ran'));
  const passed = summary;
  printResult(format, passRecord(passed), () => formatSummary(passed));
  if (summary.status !== 'succeeded') process.exit(1);
}

function passRecord(summary: PassSummary) {
  const { runId, status, checked, unchanged, corrected, notFound, errors } = summary;
  return { runId, status, checked, unchanged, corrected, notFound, errors };
}

function formatSummary(summary: PassSummary): string {
  const rows: [string, number | string][] = [
    ['run', summary.runId],
    ['status', summary.status],
    ['checked', summary.checked],
    ['unchanged', summary.unchanged],
    ['corrected', summary.corrected],
    ['not found', summary.notFound],
    ['errors', summary.errors],
  ];
  return rows.map(([name, value]) => `${name.padEnd(10)} ${value}`).join('\n') + '\n';
}
