import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  constructor(readonly limit: number) {
    super(`body over the limit of ${limit} bytes`);
  }
}

class BodyReadError extends Error {
  override readonly name = 'BodyReadError';
}

/**
 * Reads the exact bytes of the body (signatures are computed over them), refusing at once a
 * declared length over the limit and stopping as soon as the streamed bytes pass it.
 */
export function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    return Promise.reject(new BodyTooLargeError(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new BodyReadError(error.message));
    };
    const onAborted = () => {
      cleanup();
      reject(new BodyReadError('client aborted the request'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

/** application/json, or any application/*+json, with or without parameters. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** A JSON object, or null when the body is not JSON or not an object. */
export function parseJsonObject(rawBody: Buffer): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return null;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}
