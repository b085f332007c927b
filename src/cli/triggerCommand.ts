import { randomInt } from 'node:crypto';
import { Argument, InvalidArgumentError, Option, type Command } from 'commander';
import type { Config } from '../config/config.js';
import { exitOnError, loadConfig } from './environment.js';
import { formatOption, renderJsonDocument, renderRecords, type OutputFormat } from './format.js';
import { parseId } from './reconcileCommands.js';
import { TRIGGER_EVENT_NAMES, TRIGGER_EVENTS, type TriggerEventName } from './triggerEvents.js';
import { TriggerError, type Sent } from './triggerSend.js';
import type { SandboxMove } from './triggerViaSandbox.js';

interface TriggerOptions {
  url?: string;
  id?: number;
  channel: 'postback' | 'webhook';
  viaSandbox?: boolean;
  wait?: boolean;
  format: OutputFormat;
}

/** How long --wait waits for the worker to apply what was sent. */
const WAIT_MS = 30_000;

export function registerTriggerCommand(program: Command): void {
  program
    .command('trigger')
    .description('send a realistic, correctly signed notification to a running paymirror')
    .addArgument(new Argument('<event>', 'what happens').choices(TRIGGER_EVENT_NAMES))
    .option('--url <url>', 'paymirror to send to (default: this host, on PORT)', parseUrl)
    .option('--id <id>', 'the sale or withdrawal id (default: a new one)', parseId)
    .addOption(
      new Option('--channel <channel>', 'for sale events: the signed postback or the webhook')
        .choices(['postback', 'webhook'])
        .default('postback'),
    )
    .option(
      '--via-sandbox',
      "have the sandbox gateway at GATEWAY_BASE_URL make the record and deliver its own notifications (and answer paymirror's confirmations)",
    )
    .option('--wait', "then wait for the worker and print the mirror's row it produced")
    .addOption(formatOption())
    .addHelpText(
      'after',
      `\nEach event sends the notifications a real record goes through to get there (sale.refunded:
PAGO, then ESTORNADO). Secrets are the configured ones (POSTBACK_SECRETS, WEBHOOK_TOKENS), or in
development those kept in .paymirror/dev.env.`,
    )
    .action(async (event: TriggerEventName, options: TriggerOptions) => {
      try {
        await trigger(event, options);
      } catch (error) {
        exitOnError(error);
      }
    });
}

function parseUrl(value: string): string {
  if (!URL.canParse(value) || !/^https?:\/\//.test(value)) {
    throw new InvalidArgumentError('expected an http(s) URL');
  }
  return value.replace(/\/+$/, '');
}

/** The running paymirror this host runs on PORT (loopback when it listens on every address). */
function localUrl(config: Config): string {
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

async function trigger(name: TriggerEventName, options: TriggerOptions): Promise<void> {
  const [{ configuredOrKeptSecrets }, { developmentSecretsFile }] = await Promise.all([
    import('../config/developmentSecrets.js'),
    import('../config/developmentSecretsFile.js'),
  ]);
  const config = loadConfig();
  const event = TRIGGER_EVENTS[name];
  const secrets = configuredOrKeptSecrets(config, developmentSecretsFile());
  const url = options.url ?? localUrl(config);
  const sent: Sent[] = [];
  const moves: SandboxMove[] = [];
  let resource: { type: 'sale' | 'withdrawal'; id: number };
  if (options.viaSandbox) {
    if (!config.gateway) {
      throw new TriggerError(
        '--via-sandbox needs GATEWAY_BASE_URL, GATEWAY_PUBLIC_KEY and GATEWAY_PRIVATE_KEY: the ' +
          'sandbox prints them when it starts (paymirror sandbox)',
      );
    }
    const { runViaSandbox } = await import('./triggerViaSandbox.js');
    const made = await runViaSandbox(
      event,
      {
        baseUrl: config.gateway.baseUrl.replace(/\/+$/, ''),
        publicKey: config.gateway.publicKey,
        privateKey: config.gateway.privateKey,
        paymirrorUrl: url,
        webhookToken: secrets.webhookTokens[0] ?? null,
      },
      (move) => {
        moves.push(move);
        if (options.format === 'table') {
          process.stdout.write(
            `sandbox moved ${move.resource} ${move.from} → ${move.to}; it delivers the notifications\n`,
          );
        }
      },
    );
    resource = { type: event.kind, id: made.id };
  } else {
    const { sendDirect } = await import('./triggerSend.js');
    const id = options.id ?? randomInt(900_000_000, 999_999_999);
    resource = { type: event.kind, id };
    await sendDirect(
      event,
      id,
      {
        url,
        postbackSecret: secrets.postbackSecrets[0] ?? null,
        webhookToken: secrets.webhookTokens[0] ?? null,
        userId: config.sellerUserId ?? 1,
        channel: options.channel,
      },
      (one) => {
        sent.push(one);
        if (options.format === 'table') process.stdout.write(describeSent(one));
      },
    );
  }
  const mirror = options.wait ? await waitForMirror(resource, event.steps.at(-1) ?? '') : null;
  switch (options.format) {
    case 'json':
      process.stdout.write(
        renderJsonDocument({
          event: name,
          ...(options.viaSandbox ? { sandboxMoves: moves } : { sent }),
          ...(mirror ? { mirror: mirror.document } : {}),
        }),
      );
      break;
    case 'csv':
      process.stdout.write(
        options.viaSandbox
          ? renderRecords('csv', moves)
          : renderRecords(
              'csv',
              sent.map(({ body: _body, answer, ...row }) => ({
                ...row,
                answer: JSON.stringify(answer),
              })),
            ),
      );
      if (mirror) process.stdout.write(`\n${mirror.render('csv')}`);
      break;
    case 'table':
      if (mirror) process.stdout.write(`\n${mirror.render('table')}`);
  }
}

function describeSent(sent: Sent): string {
  const answer = sent.answer as { status?: unknown; id?: unknown } | string;
  const said =
    typeof answer === 'object' && answer !== null && typeof answer.status === 'string'
      ? `${answer.status}${answer.id !== undefined ? ` (inbox #${String(answer.id)})` : ''}`
      : JSON.stringify(answer);
  return (
    `sent ${sent.channel} POST ${sent.path}: ${sent.resource} ${sent.status} → ${sent.httpStatus} ${said}\n` +
    `  ${JSON.stringify(sent.body)}\n`
  );
}

/** The notifications name a bank's failure REJECTED; the read form says FAILED. */
const SAME_STATUS: Record<string, readonly string[]> = { REJECTED: ['REJECTED', 'FAILED'] };

/**
 * Waits until the mirror's row has the event's last status and no delivery about it is pending, then reads it as `paymirror mirror` shows it.
 */
async function waitForMirror(
  resource: { type: 'sale' | 'withdrawal'; id: number },
  lastStatus: string,
) {
  const [
    { loadMirrorRecord, mirrorDocument, renderMirrorRecord },
    { listInbox },
    { withDatabase },
  ] = await Promise.all([
    import('./mirrorRecord.js'),
    import('../inbox/sql/operator.js'),
    import('./storageContext.js'),
  ]);
  const wanted = SAME_STATUS[lastStatus] ?? [lastStatus];
  const found = await withDatabase(async ({ database }) => {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const [record, deliveries] = await Promise.all([
        loadMirrorRecord(database.sql, resource.type, resource.id),
        listInbox(database.sql, { resource, limit: 100 }),
      ]);
      const status = (record?.record as { status?: string } | undefined)?.status ?? '';
      const settled = deliveries.length > 0 && deliveries.every((row) => row.state !== 'pending');
      if (record && settled && wanted.includes(status)) return record;
      if (Date.now() > deadline) {
        throw new TriggerError(
          `the mirror did not reach ${lastStatus} for ${resource.type} ${resource.id} within ` +
            `${WAIT_MS / 1000} s: is a worker running against this DATABASE_URL? ` +
            `(paymirror inbox list --resource ${resource.type}:${resource.id})`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });
  return {
    document: mirrorDocument(resource.type, found),
    render: (format: OutputFormat) => renderMirrorRecord(format, resource.type, found),
  };
}
