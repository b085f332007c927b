/**
 * One delivery attempt: an HTTP POST that never follows redirects and never throws.
 */
export interface PostResult {
  /** The answer's status, or null when no answer came (refused, reset, timed out, aborted). */
  readonly statusCode: number | null;
  readonly error: string | null;
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.name}: ${error.message}${cause}`;
  }
  return String(error);
}

export async function postOnce(
  url: string,
  init: {
    headers: Readonly<Record<string, string>>;
    body: string;
    timeoutMs: number;
    signal: AbortSignal;
  },
): Promise<PostResult> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: init.headers,
      body: init.body,
      redirect: 'manual',
      signal: AbortSignal.any([init.signal, AbortSignal.timeout(init.timeoutMs)]),
    });
    // Reading the answer to its end lets the connection be reused.
    await response.arrayBuffer().catch(() => undefined);
    return { statusCode: response.status, error: null };
  } catch (error) {
    return { statusCode: null, error: describeError(error) };
  }
}
