import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerBooksCommands } from './booksCommands.js';
import { registerDemoCommand } from './demoCommand.js';
import { registerInboxCommands } from './inboxCommands.js';
import { registerMaintenanceCommands } from './maintenanceCommands.js';
import { registerMigrateCommand } from './migrateCommand.js';
import { registerMirrorCommands } from './mirrorCommands.js';
import { registerOperatorCommands } from './operatorCommands.js';
import { registerReconcileCommands } from './reconcileCommands.js';
import { registerReportCommand } from './reportCommand.js';
import { registerSandboxCommand } from './sandboxCommand.js';
import { registerStartCommand } from './startCommand.js';
import { registerTriggerCommand } from './triggerCommand.js';

const program = new Command()
  .name('paymirror')
  .description(
    'Receives the gateway notifications and keeps a true Postgres mirror of sales and withdrawals.',
  )
  .version(packageVersion(), '-V, --version')
  .showHelpAfterError()
  // Exit codes: 0 done, 1 failed, 2 the command line (or the configuration) is wrong, 3 a
  // cashout whose outcome is unknown. Commander's own parse errors exit 2 like ours.
  .exitOverride();

registerStartCommand(program);
registerMigrateCommand(program);
registerReconcileCommands(program);
registerInboxCommands(program);
registerMaintenanceCommands(program);
registerReportCommand(program);
registerBooksCommands(program);
registerOperatorCommands(program);
registerMirrorCommands(program);
registerTriggerCommand(program);
registerSandboxCommand(program);
registerDemoCommand(program);

// A failure other than the command line's is node's to print, with exit code 1.
try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  process.exit(error.exitCode === 0 ? 0 : 2);
}

function packageVersion(): string {
  const manifest = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}
