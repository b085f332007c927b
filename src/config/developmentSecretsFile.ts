import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import { ConfigError } from './config.js';

/** Where development mode keeps what it made up, relative to the working directory. */
const DEVELOPMENT_SECRETS_PATH = join('.paymirror', 'dev.env');

interface KeptSecrets {
  readonly postbackSecret?: string;
  readonly webhookToken?: string;
}

export interface DevelopmentSecretsFile {
  readonly path: string;
  read(): KeptSecrets;
  write(secrets: KeptSecrets): void;
}

// The same rule as the configured values (config.ts): 16+ characters, URL-safe for the token.
const fileSchema = z.object({
  POSTBACK_SECRETS: z.string().min(16).optional(),
  WEBHOOK_TOKENS: z
    .string()
    .regex(/^[A-Za-z0-9_-]{16,}$/)
    .optional(),
});

/**
 * A `.env`-format file of its own, so its lines can be copied into `.env` as they are. Its
 * folder carries a `.gitignore` of `*`, so it stays out of git wherever paymirror runs.
 */
export function developmentSecretsFile(
  path: string = DEVELOPMENT_SECRETS_PATH,
): DevelopmentSecretsFile {
  return {
    path,
    read() {
      if (!existsSync(path)) return {};
      const parsed = fileSchema.safeParse(parseEnv(readFileSync(path, 'utf8')));
      if (!parsed.success) {
        throw new ConfigError([
          `${path}: ${parsed.error.issues.map((issue) => issue.path.join('.')).join(', ')} ` +
            'not as paymirror wrote them; delete the file to make new development secrets',
        ]);
      }
      return {
        ...(parsed.data.POSTBACK_SECRETS ? { postbackSecret: parsed.data.POSTBACK_SECRETS } : {}),
        ...(parsed.data.WEBHOOK_TOKENS ? { webhookToken: parsed.data.WEBHOOK_TOKENS } : {}),
      };
    },
    write(secrets) {
      const folder = dirname(path);
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      const ignore = join(folder, '.gitignore');
      if (!existsSync(ignore)) writeFileSync(ignore, '*\n');
      const lines = [
        '# Made up by paymirror in development mode and reused at every start.',
        '# Never read in production: copy these lines into .env (or your secret store) to keep them.',
        ...(secrets.postbackSecret ? [`POSTBACK_SECRETS=${secrets.postbackSecret}`] : []),
        ...(secrets.webhookToken ? [`WEBHOOK_TOKENS=${secrets.webhookToken}`] : []),
      ];
      writeFileSync(path, `${lines.join('\n')}\n`, { mode: 0o600 });
      chmodSync(path, 0o600);
    },
  };
}
