import { Command, InvalidArgumentError, Option } from 'commander';
import { centsFromReaisString, MoneyError } from '../domain/money.js';
import { GatewayError, PIX_KEY_TYPES, type PixKeyType } from '../gateway/index.js';
import { exitOnError } from './environment.js';
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
    .action(async (options: { amount: number; pixKey: string; pixKeyType: PixKeyType }) => {
      await answerOrTypedError(async () => {
        const [{ requestCashout }, { withGatewayContext }] = await Promise.all([
          import('../operations/requestCashout.js'),
          import('./gatewayContext.js'),
        ]);
        return withGatewayContext(({ config, database, gateway }) =>
          requestCashout(
            { db: database.db, gateway, policy: config.watchPolicy },
            { amountCents: options.amount, pixKey: options.pixKey, pixKeyType: options.pixKeyType },
          ),
        );
      });
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

async function answerOrTypedError(fn: () => Promise<unknown>): Promise<void> {
  try {
    const answer = await fn();
    process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
  } catch (error) {
    if (error instanceof GatewayError) {
      const fields = {
        error: 'GatewayError',
        kind: error.kind,
        status: error.status,
        shape: error.shape,
        errorType: error.errorType,
        code: error.code,
        message: error.message,
      };
      process.stdout.write(`${JSON.stringify(fields, null, 2)}\n`);
      process.exit(1);
    }
    exitOnError(error);
  }
}
