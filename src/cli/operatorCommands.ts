import { Command, InvalidArgumentError, Option } from 'commander';
import { centsFromReaisString, MoneyError } from '../domain/money.js';
import { GatewayError, PIX_KEY_TYPES, type PixKeyType } from '../gateway/index.js';
import type { CashoutResult } from '../operations/requestCashout.js';
import type { CashoutOutcome } from '../operations/sql.js';
import { exitOnError } from './environment.js';
import { formatOption, printRecords, type OutputFormat } from './format.js';
import { parseId } from './reconcileCommands.js';

function parseReais(value: string): number {
  try {
    return centsFromReaisString(value);
  } catch (error) {
    if (error instanceof MoneyError) throw new InvalidArgumentError('expected reais like 150.00');
    throw error;
  }
}

export function registerOperatorCommands(program: Command): void {
  program
    .command('cashout')
    .description('ask the gateway for a withdrawal to a PIX key (sent once, never retried)')
    .requiredOption('--amount <reais>', 'amount in reais, e.g. 150.00', parseReais)
    .requiredOption('--pix-key <key>', 'destination PIX key (8 to 77 characters)')
    .addOption(
      new Option('--pix-key-type <type>', 'PIX key type').choices(PIX_KEY_TYPES).default('CPF'),
    )
    .addHelpText(
      'after',
      `\nEvery attempt is recorded before it is sent (paymirror cashouts list). Exit codes: 0 paid
(the withdrawal is printed, with the attempt id), 1 refused by the gateway (nothing paid) or not
sent because an earlier attempt is still pending or unknown (resolve it first, or --force),
${EXIT_OUTCOME_UNKNOWN} outcome unknown (a time-out, a dropped connection, a 5xx or an answer that does not
decode): it may have been paid, so do not send it again before checking (see docs/operating.md, "Cashouts").`,
    )
    .option('--dry-run', 'check everything and print the request; send and record nothing')
    .option(
      '--force',
      'send even while an earlier attempt is pending or unknown (it may have paid: check first)',
    )
    .action(async (options: CashoutOptions) => {
      try {
        if (options.dryRun) {
          await dryRunCashout(options);
          return;
        }
        const [{ requestCashout }, { withGatewayContext }] = await Promise.all([
          import('../operations/requestCashout.js'),
          import('./gatewayContext.js'),
        ]);
        const result = await withGatewayContext(({ config, database, gateway, logger }) =>
          requestCashout(
            { sql: database.sql, gateway, policy: config.watchPolicy, logger },
            { amountCents: options.amount, pixKey: options.pixKey, pixKeyType: options.pixKeyType },
            { forced: options.force === true },
          ),
        );
        printCashout(result);
      } catch (error) {
        exitOnError(error);
      }
    });

  const cashouts = program.command('cashouts').description('the cashout attempts paymirror sent');
  cashouts
    .command('list')
    .description('list attempts, newest first')
    .addOption(
      new Option('--outcome <outcome>', 'only these').choices([
        'pending',
        'succeeded',
        'rejected',
        'unknown',
        'not_paid',
      ]),
    )
    .option('--limit <n>', 'at most this many', parseCount, 50)
    .addOption(formatOption())
    .action(async (options: { outcome?: string; limit: number; format: OutputFormat }) => {
      try {
        const [{ listCashoutAttempts }, { withDatabase }] = await Promise.all([
          import('../operations/cashoutAttempts.js'),
          import('./storageContext.js'),
        ]);
        const rows = await withDatabase(({ database }) =>
          listCashoutAttempts(
            database.sql,
            (options.outcome ?? null) as CashoutOutcome | null,
            options.limit,
          ),
        );
        printRecords(options.format, rows);
      } catch (error) {
        exitOnError(error);
      }
    });

  cashouts
    .command('resolve')
    .description('record what became of a cashout whose outcome was unknown')
    .argument('<attempt>', 'the attempt id', parseId)
    .option('--withdrawal <id>', 'it was paid: the withdrawal the gateway created', parseId)
    .option('--not-paid', 'it was not paid: the gateway has no such withdrawal')
    .action(async (attempt: number, options: { withdrawal?: number; notPaid?: boolean }) => {
      try {
        if ((options.withdrawal === undefined) === (options.notPaid !== true)) {
          throw new InvalidArgumentError('give exactly one of --withdrawal <id> and --not-paid');
        }
        const [{ resolveCashoutAttempt }, { withGatewayContext }] = await Promise.all([
          import('../operations/cashoutAttempts.js'),
          import('./gatewayContext.js'),
        ]);
        const resolved = await withGatewayContext(({ config, database, gateway }) =>
          resolveCashoutAttempt(
            { sql: database.sql, gateway, policy: config.watchPolicy },
            attempt,
            options.withdrawal === undefined
              ? { kind: 'not_paid' }
              : { kind: 'paid', withdrawalId: options.withdrawal },
          ),
        );
        process.stdout.write(`${JSON.stringify(resolved, null, 2)}\n`);
      } catch (error) {
        exitOnError(error);
      }
    });

  program
    .command('sale')
    .description('read the gateway')
    .command('get <id>')
    .description("print the gateway's record of a sale")
    .action(async (id: string) => {
      await answerOrTypedError(async () => {
        const { withGatewayContext } = await import('./gatewayContext.js');
        return withGatewayContext(({ gateway }) => gateway.getTransaction(parseId(id)));
      });
    });
}

interface CashoutOptions {
  amount: number;
  pixKey: string;
  pixKeyType: PixKeyType;
  dryRun?: boolean;
  force?: boolean;
}

/**
 * What `cashout` would send, after every check it can make without sending: the gateway keys
 * are configured, the schema is current, the body encodes; and whether an earlier attempt is
 * still unresolved (sending again could pay twice).
 */
async function dryRunCashout(options: CashoutOptions): Promise<void> {
  const [{ cashoutBody }, { listCashoutAttempts }, { withGatewayContext }] = await Promise.all([
    import('../gateway/requestBodies.js'),
    import('../operations/cashoutAttempts.js'),
    import('./gatewayContext.js'),
  ]);
  const request = {
    amountCents: options.amount,
    pixKey: options.pixKey,
    pixKeyType: options.pixKeyType,
  };
  const body = JSON.parse(cashoutBody(request)) as unknown;
  const unresolved = await withGatewayContext(async ({ database }) => [
    ...(await listCashoutAttempts(database.sql, 'pending', 100)),
    ...(await listCashoutAttempts(database.sql, 'unknown', 100)),
  ]);
  process.stdout.write(
    `${JSON.stringify(
      { dryRun: true, wouldSend: body, unresolvedAttempts: unresolved.map((a) => a.id) },
      null,
      2,
    )}\n`,
  );
  if (unresolved.length > 0) {
    process.stderr.write(
      `paymirror: ${unresolved.length} earlier cashout attempt(s) have no known outcome ` +
        `(paymirror cashouts list --outcome unknown): resolve them before sending another.\n`,
    );
  }
}

/** `cashout`'s own exit code: it may have paid. */
const EXIT_OUTCOME_UNKNOWN = 3;

function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError('expected a positive integer');
  return n;
}

function printCashout(result: CashoutResult): void {
  switch (result.kind) {
    case 'succeeded': {
      const { attemptId, withdrawal, recordError } = result;
      process.stdout.write(
        `${JSON.stringify({ ...withdrawal, attemptId, ...(recordError ? { notRecorded: recordError } : {}) }, null, 2)}\n`,
      );
      if (recordError) {
        process.stderr.write(
          `paymirror: withdrawal ${withdrawal.id} was created, but not written to the mirror ` +
            `(${recordError}); reconciliation will bring it. Do not send it again.\n`,
        );
      }
      return;
    }
    case 'rejected':
      process.stdout.write(
        `${JSON.stringify({ ...gatewayErrorFields(result.error), attemptId: result.attemptId }, null, 2)}\n`,
      );
      process.exit(1);
      break;
    case 'blocked': {
      const { blockedBy } = result;
      process.stderr.write(
        `paymirror: not sent. Cashout attempt ${blockedBy.id} (${blockedBy.amountCents} centavos ` +
          `to ${blockedBy.pixKey}) is ${blockedBy.outcome}: it may have been paid, and sending ` +
          `another could pay twice. Check the gateway's withdrawals, then record what you found: ` +
          `paymirror cashouts resolve ${blockedBy.id} --withdrawal <id> | --not-paid ` +
          `(or send anyway with --force).\n`,
      );
      process.stdout.write(
        `${JSON.stringify({ error: 'CashoutUnresolved', blockedBy: blockedBy.id, outcome: blockedBy.outcome }, null, 2)}\n`,
      );
      process.exit(1);
      break;
    }
    case 'unknown': {
      const { attemptId, error } = result;
      process.stderr.write(
        `paymirror: outcome unknown — do not retry before checking. Cashout attempt ${attemptId} ` +
          `was sent and no clear answer came back: it may have been paid. Check the gateway's ` +
          `withdrawals (or wait for its webhook), then record what you found: ` +
          `paymirror cashouts resolve ${attemptId} --withdrawal <id> | --not-paid\n`,
      );
      process.stdout.write(
        `${JSON.stringify(
          {
            ...(error instanceof GatewayError
              ? gatewayErrorFields(error)
              : { message: String(error) }),
            error: 'CashoutOutcomeUnknown',
            attemptId,
          },
          null,
          2,
        )}\n`,
      );
      process.exit(EXIT_OUTCOME_UNKNOWN);
    }
  }
}

function gatewayErrorFields(error: GatewayError) {
  return {
    error: 'GatewayError',
    kind: error.kind,
    status: error.status,
    shape: error.shape,
    errorType: error.errorType,
    code: error.code,
    message: error.message,
  };
}

async function answerOrTypedError(fn: () => Promise<unknown>): Promise<void> {
  try {
    const answer = await fn();
    process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
  } catch (error) {
    if (error instanceof GatewayError) {
      process.stdout.write(`${JSON.stringify(gatewayErrorFields(error), null, 2)}\n`);
      process.exit(1);
    }
    exitOnError(error);
  }
}
