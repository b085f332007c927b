import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

/** Field names that may hold a secret, wherever they appear (one or two levels deep). */
const SECRET_FIELDS = [
  'secret',
  'secrets',
  'postbackSecret',
  'postbackSecrets',
  'webhookToken',
  'webhookTokens',
  'token',
  'signature',
  'privateKey',
  'publicKey',
  'authorization',
  'x-signature',
  'x-api-private-key',
  'x-api-public-key',
  'password',
];

const REDACT_PATHS = [
  ...SECRET_FIELDS.flatMap((field) => [`["${field}"]`, `*["${field}"]`, `*.*["${field}"]`]),
  'gateway.privateKey',
  'gateway.publicKey',
];

export interface LoggerOptions {
  readonly level: string;
  /** Literal secrets to scrub from every line, whatever field or message carries them. */
  readonly secrets?: readonly string[];
  readonly destination?: DestinationStream;
  readonly base?: Record<string, unknown>;
}

/**
 * JSON logs with two guards: path redaction for the fields we know, and a last pass over each
 * serialised line that replaces every configured secret (a token inside a URL or an error
 * message would slip past path redaction).
 */
export function createLogger(options: LoggerOptions): Logger {
  const secrets = (options.secrets ?? []).filter((s) => s.length >= 4);
  return pino(
    {
      level: options.level,
      base: options.base ?? { service: 'paymirror' },
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      ...(secrets.length > 0
        ? { hooks: { streamWrite: (line: string) => scrub(line, secrets) } }
        : {}),
    },
    options.destination,
  );
}

function scrub(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join('[REDACTED]');
    const jsonEscaped = JSON.stringify(secret).slice(1, -1);
    if (jsonEscaped !== secret && out.includes(jsonEscaped)) {
      out = out.split(jsonEscaped).join('[REDACTED]');
    }
  }
  return out;
}
