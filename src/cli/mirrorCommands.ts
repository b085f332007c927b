import type { Command } from 'commander';
import { exitOnError } from './environment.js';
import { formatOption, type OutputFormat } from './format.js';
import type { ResourceType } from './mirrorRecord.js';
import { parseId } from './reconcileCommands.js';

export function registerMirrorCommands(program: Command): void {
  const mirror = program
    .command('mirror')
    .description("paymirror's own record of a sale or withdrawal (`sale get` reads the gateway)");
  for (const type of ['sale', 'withdrawal'] as const) {
    mirror
      .command(`${type} <id>`)
      .description(
        `the mirror's row of a ${type}, its status history, the deliveries that fed it and its discrepancies`,
      )
      .addOption(formatOption())
      .action(async (id: string, options: { format: OutputFormat }) => {
        try {
          await showRecord(type, parseId(id), options.format);
        } catch (error) {
          exitOnError(error);
        }
      });
  }
}

async function showRecord(type: ResourceType, id: number, format: OutputFormat): Promise<void> {
  const [{ loadMirrorRecord, renderMirrorRecord }, { withDatabase }] = await Promise.all([
    import('./mirrorRecord.js'),
    import('./storageContext.js'),
  ]);
  const found = await withDatabase(({ database }) => loadMirrorRecord(database.sql, type, id));
  if (!found) {
    process.stderr.write(`paymirror: no ${type} ${id} in the mirror\n`);
    process.exit(1);
  }
  process.stdout.write(renderMirrorRecord(format, type, found));
}
