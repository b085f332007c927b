import { Command, InvalidArgumentError, Option } from 'commander';
import { BODY_HEAD_BYTES } from '../inbox/keptBody.js';
import type { ReplaySelection } from '../inbox/sql/operator.js';
import { exitOnError } from './environment.js';
import {
  formatOption,
  parseDuration,
  printRecords,
  printResult,
  type OutputFormat,
} from './format.js';
import { parseId } from './reconcileCommands.js';

/** What the inbox commands run, loaded when one of them runs (not for the other commands). */
async function load() {
  const [operator, rejected, reverify, webhookAuth, catalog, storage] = await Promise.all([
    import('../inbox/sql/operator.js'),
    import('../inbox/sql/rejected.js'),
    import('../ingress/reverifyRejected.js'),
    import('../ingress/webhookAuth.js'),
    import('../queue/catalog.js'),
    import('./storageContext.js'),
  ]);
  // Named rather than returned at once: knip follows the modules' exports through a variable.
  const loaded = { ...operator, ...rejected, ...reverify, ...webhookAuth, ...catalog, ...storage };
  return loaded;
}

function parseResource(value: string): { type: 'sale' | 'withdrawal'; id: number } {
  const match = /^(sale|withdrawal):([0-9]{1,15})$/.exec(value);
  if (!match) throw new InvalidArgumentError('expected sale:<id> or withdrawal:<id>');
  return { type: match[1] as 'sale' | 'withdrawal', id: Number(match[2]) };
}

function run(fn: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await fn();
    } catch (error) {
      exitOnError(error);
    }
  };
}

export function registerInboxCommands(program: Command): void {
  const inbox = program.command('inbox').description('look at and replay stored deliveries');
  inbox
    .command('list')
    .description('the newest inbox rows, filtered')
    .addOption(
      new Option('--state <state>').choices(['pending', 'processed', 'quarantined', 'failed']),
    )
    .option('--since <duration>', 'received within, e.g. 2h', parseDuration)
    .option('--resource <resource>', 'sale:<id> or withdrawal:<id>', parseResource)
    .option('--limit <n>', 'at most this many rows', parseId, 100)
    .addOption(formatOption())
    .action(
      async (options: {
        state?: 'pending' | 'processed' | 'quarantined' | 'failed';
        since?: number;
        resource?: { type: 'sale' | 'withdrawal'; id: number };
        limit: number;
        format: OutputFormat;
      }) =>
        run(async () => {
          const { listInbox, withDatabase } = await load();
          const rows = await withDatabase(({ database }) =>
            listInbox(database.sql, {
              limit: options.limit,
              ...(options.state ? { state: options.state } : {}),
              ...(options.since !== undefined ? { sinceSeconds: options.since } : {}),
              ...(options.resource ? { resource: options.resource } : {}),
            }),
          );
          printRecords(options.format, rows);
        })(),
    );
  inbox
    .command('show <id>')
    .description('one inbox row: raw body, headers kept, outcome, attempts, last error')
    .action(async (id: string) =>
      run(async () => {
        const { showInbox, withDatabase } = await load();
        const detail = await withDatabase(({ database }) => showInbox(database.sql, parseId(id)));
        if (!detail) {
          process.stderr.write(`paymirror: no inbox row ${id}\n`);
          process.exit(1);
        }
        process.stdout.write(`${JSON.stringify(detail, null, 2)}\n`);
      })(),
    );
  inbox
    .command('replay [id]')
    .description('run the worker path again for a failed or quarantined row (idempotent)')
    .option('--failed', 'every failed row')
    .option('--quarantined', 'every quarantined row')
    .action(async (id: string | undefined, options: { failed?: boolean; quarantined?: boolean }) =>
      run(async () => {
        const chosen = [
          id !== undefined,
          options.failed === true,
          options.quarantined === true,
        ].filter(Boolean);
        if (chosen.length !== 1) {
          process.stderr.write('paymirror: give exactly one of <id>, --failed, --quarantined\n');
          process.exit(2);
        }
        const selection: ReplaySelection =
          id !== undefined
            ? { kind: 'one', id: parseId(id) }
            : { kind: 'state', state: options.failed ? 'failed' : 'quarantined' };
        const { enqueueNotifications, markForReplay, withDatabase, withQueue } = await load();
        // The queue first: with Redis away, nothing is marked.
        const ids = await withDatabase(({ config, database }) =>
          withQueue(config, async (queue) => {
            const marked = await markForReplay(database.sql, selection);
            await enqueueNotifications(queue, marked, {
              attempts: config.jobAttempts,
              backoffMs: config.jobBackoffMs,
            });
            return marked;
          }),
        );
        process.stdout.write(
          `replayed ${ids.length} inbox row(s)${ids.length ? `: ${ids.join(', ')}` : ''}\n`,
        );
      })(),
    );

  const rejected = program.command('rejected').description('deliveries that failed authentication');
  rejected
    .command('list')
    .option('--since <duration>', 'received within, e.g. 2h', parseDuration)
    .option('--limit <n>', 'at most this many rows', parseId, 100)
    .addOption(formatOption())
    .action(async (options: { since?: number; limit: number; format: OutputFormat }) =>
      run(async () => {
        const { listRejected, withDatabase } = await load();
        const rows = await withDatabase(({ database }) =>
          listRejected(database.sql, options.since, options.limit),
        );
        printRecords(options.format, rows);
      })(),
    );
  rejected
    .command('reverify')
    .description(
      'check kept rejections against the current secrets and tokens; move the ones that pass into the inbox',
    )
    .addOption(formatOption())
    .action(async (options: { format: OutputFormat }) =>
      run(async () => {
        const {
          createSourceAllowlist,
          enqueueNotifications,
          reverifyRejected,
          withDatabase,
          withQueue,
        } = await load();
        const summary = await withDatabase(async ({ config, database }) => {
          const result = await reverifyRejected(database.sql, {
            postbackSecrets: config.postbackSecrets,
            webhookTokens: config.webhookTokens,
            sellerUserId: config.sellerUserId,
            sourceAllowlist: createSourceAllowlist(config.webhookAllowedCidrs),
            dedupeWindowHours: config.dedupeWindowHours,
          });
          await withQueue(config, (queue) =>
            enqueueNotifications(queue, result.acceptedIds, {
              attempts: config.jobAttempts,
              backoffMs: config.jobBackoffMs,
            }),
          );
          return result;
        });
        const { checked, moved, stillRejected, notRecheckable } = summary;
        printResult(
          options.format,
          { checked, moved, stillRejected, notRecheckable },
          () =>
            `checked ${checked}, moved to the inbox ${moved}, still rejected ${stillRejected}\n` +
            (notRecheckable > 0
              ? `${notRecheckable} cannot be checked again: only the first ${BODY_HEAD_BYTES} bytes ` +
                'of their body were kept (a few whole bodies per source per hour are); ' +
                'the gateway must deliver them again\n'
              : ''),
        );
      })(),
    );
}
