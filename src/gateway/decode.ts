import type { z } from 'zod';
import { GatewayError } from './gatewayError.js';
import { WireFieldError } from './toDomain.js';
import type { GatewayEndpoint } from './types.js';

/**
 * A 2xx body → the domain record, or a GatewayError 'invalid_response' naming the field that
 * did not match (docs/gateway.md 2.1–2.3). Never retried: the same answer would come back.
 */
export function decodeAnswer<Wire, Out>(
  endpoint: GatewayEndpoint,
  text: string,
  schema: z.ZodType<Wire>,
  toDomain: (wire: Wire) => Out,
  redact: (text: string) => string,
): Out {
  const invalid = (detail: string, cause?: unknown): GatewayError =>
    new GatewayError({
      endpoint,
      kind: 'invalid_response',
      message: redact(`${endpoint}: invalid response: ${detail}`),
      rawAnswer: redact(text),
      cause,
    });

  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    throw invalid('body is not JSON');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map(
        (issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(body)'}: ${issue.message}`,
      );
    throw invalid(issues.join('; '));
  }
  try {
    return toDomain(parsed.data);
  } catch (error) {
    if (error instanceof WireFieldError) throw invalid(error.message);
    throw error;
  }
}

/** A GET must answer about the record asked for. */
export function checkSameId(endpoint: GatewayEndpoint, asked: number, got: number): void {
  if (asked !== got) {
    throw new GatewayError({
      endpoint,
      kind: 'invalid_response',
      message: `${endpoint}: invalid response: id: asked for ${asked}, got ${got}`,
    });
  }
}
