import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { z } from 'zod';
import { createLogger } from '../log/logger.js';
import { exitOnError } from './environment.js';

interface SandboxFlags {
  port: string;
  host: string;
  publicKey?: string;
  privateKey?: string;
  postbackSecret?: string;
  webhookUrl?: string;
  userId: string;
  initialBalance: string;
}

export function registerSandboxCommand(program: Command): void {
  program
    .command('sandbox')
    .description('run an in-memory gateway that follows the spec (keys generated when not given)')
    .option('--port <port>', 'port to listen on', '4000')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--public-key <key>', 'public API key (sbx_…)')
    .option('--private-key <key>', 'private API key (sbx_…)')
    .option('--postback-secret <secret>', 'secret that signs postbacks')
    .option(
      '--webhook-url <url>',
      'permanent webhook URL (e.g. http://127.0.0.1:3000/webhooks/<token>)',
    )
    .option('--user-id <n>', 'the seller user id', '1')
    .option('--initial-balance <reais>', 'available balance at start, in reais', '0')
    .action(async (flags: SandboxFlags) => {
      try {
        await runSandbox(flags);
      } catch (error) {
        if (error instanceof z.ZodError) {
          process.stderr.write(`paymirror sandbox: ${z.prettifyError(error)}\n`);
          process.exit(2);
        }
        exitOnError(error);
      }
    });
}

async function runSandbox(flags: SandboxFlags): Promise<void> {
  const { createSandbox, generateKeyPair, sandboxOptionsSchema } =
    await import('../sandbox/index.js');
  const keys = generateKeyPair();
  const generatedSecret = randomBytes(24).toString('base64url');
  const options = sandboxOptionsSchema.parse({
    ...flags,
    publicKey: flags.publicKey ?? keys.publicKey,
    privateKey: flags.privateKey ?? keys.privateKey,
    postbackSecret: flags.postbackSecret ?? generatedSecret,
  });
  const logger = createLogger({ level: 'info', base: { service: 'paymirror-sandbox' } });
  const { port, host, ...settings } = options;
  const sandbox = createSandbox({ ...settings, logger });
  const { url } = await sandbox.listen(port, host);
  process.stdout.write(
    [
      `sandbox gateway listening on ${url} (control API: ${url}/_sandbox, see src/sandbox/README.md)`,
      `  GATEWAY_BASE_URL=${url}`,
      `  GATEWAY_PUBLIC_KEY=${options.publicKey}`,
      `  GATEWAY_PRIVATE_KEY=${options.privateKey}`,
      `  POSTBACK_SECRETS=${options.postbackSecret}`,
      `  SELLER_USER_ID=${options.userId}`,
      `  webhook: ${options.webhookUrl ?? '(none: POST /_sandbox/config {"webhookUrl": …})'}`,
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  await sandbox.close();
  process.exit(0);
}
