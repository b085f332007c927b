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
    .command('tail')
    .description(
      'follow deliveries live: each as it is stored and again when the worker settles it (Ctrl-C stops)',
    )
    .option('--after <id>', 'start after this inbox id (default: the newest)', parseZeroOrId)
    .addOption(formatOption())
    .action(async (options: { after?: number; format: OutputFormat }) =>
      run(async () => {
        const [{ lastInboxId, tailInbox, withDatabase }, { followInbox }] = await Promise.all([
          load(),
          import('./inboxTail.js'),
        ]);
        const stopped = new Promise((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
        await withDatabase(({ database }) =>
          followInbox(
            database.sql,
            {
              format: options.format,
              afterId: options.after ?? null,
              intervalMs: TAIL_INTERVAL_MS,
              write: (text) => process.stdout.write(text),
              notice: (text) => process.stderr.write(text),
              stopped,
            },
            { lastInboxId, tailInbox },
          ),
        );
      })(),
    );
  inbox
    .command('replay [id]')
    .description(
      'run the worker path again for a failed or quarantined row (idempotent); or, with --to-feed, resend a transition to the feed',
    )
    .option('--failed', 'every failed row')
    .option('--quarantined', 'every quarantined row')
    .option(
      '--to-feed <id>',
      'resend this transition (its status_history id, as `paymirror mirror sale <id>` lists) to the transition feed',
      parseId,
    )
    .action(
      async (
        id: string | undefined,
        options: { failed?: boolean; quarantined?: boolean; toFeed?: number },
      ) =>
        run(async () => {
          const chosen = [
            id !== undefined,
            options.failed === true,
            options.quarantined === true,
            options.toFeed !== undefined,
          ].filter(Boolean);
          if (chosen.length !== 1) {
            process.stderr.write(
              'paymirror: give exactly one of <id>, --failed, --quarantined, --to-feed <id>\n',
            );
            process.exit(2);
          }
          if (options.toFeed !== undefined) {
            await replayToFeed(options.toFeed);
            return;
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

const TAIL_INTERVAL_MS = 500;

function parseZeroOrId(value: string): number {
  return value === '0' ? 0 : parseId(value);
}

/** Puts one transition on the feed's queue again (the feed need not be on in this process). */
async function replayToFeed(historyId: number): Promise<void> {
  const [{ replayTransition }, { createTransitionQueue }, catalog, redis, { withDatabase }] =
    await Promise.all([
      import('../feed/replayTransition.js'),
      import('../feed/transitionPublisher.js'),
      import('../queue/catalog.js'),
      import('../runtime/redis.js'),
      import('./storageContext.js'),
    ]);
  const { requireRedis } = await import('../runtime/dependencies.js');
  const { transition, jobId } = await withDatabase(async ({ config, database }) => {
    await requireRedis(config.redis);
    const connection = redis.createCommandRedis(config.redis);
    const queue = createTransitionQueue(
      connection,
      redis.queuePrefixFor(config, catalog.TRANSITIONS_QUEUE),
    );
    try {
      await queue.waitUntilReady();
      return await replayTransition(database.sql, queue, historyId);
    } finally {
      await queue.close();
      connection.disconnect();
    }
  });
  process.stdout.write(
    `resent transition ${transition.id} (${transition.resourceType} ${transition.resourceId}: ` +
      `${transition.fromStatus ?? '(first seen)'} → ${transition.toStatus}) to ` +
      `${catalog.TRANSITIONS_QUEUE} as job ${jobId}\n`,
  );
}
