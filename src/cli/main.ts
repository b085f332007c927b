import { Command } from 'commander';
import { registerDemoCommand } from './demoCommand.js';
import { registerInboxCommands } from './inboxCommands.js';
import { registerMaintenanceCommands } from './maintenanceCommands.js';
import { registerMigrateCommand } from './migrateCommand.js';
import { registerOperatorCommands } from './operatorCommands.js';
import { registerReconcileCommands } from './reconcileCommands.js';
import { registerReportCommand } from './reportCommand.js';
import { registerSandboxCommand } from './sandboxCommand.js';
import { registerStartCommand } from './startCommand.js';

const program = new Command()
  .name('paymirror')
  .description(
    'Receives the gateway notifications and keeps a true Postgres mirror of sales and withdrawals.',
  )
  .showHelpAfterError();

registerStartCommand(program);
registerMigrateCommand(program);
registerReconcileCommands(program);
registerInboxCommands(program);
registerMaintenanceCommands(program);
registerReportCommand(program);
registerOperatorCommands(program);
registerSandboxCommand(program);
registerDemoCommand(program);

await program.parseAsync(process.argv);
