/** One HTTP exchange with the gateway, bounded by a timeout that covers the body too. */

export interface HttpRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs: number;
}

/** Expected outcomes are values: an answer (any status), no answer, or no answer in time. */
export type HttpOutcome =
  | {
      readonly kind: 'answer';
      readonly status: number;
      readonly headers: Headers;
      readonly text: string;
    }
  | { readonly kind: 'network'; readonly cause: unknown }
  | { readonly kind: 'timeout' };

export async function sendOnce(fetchFn: typeof fetch, request: HttpRequest): Promise<HttpOutcome> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<HttpOutcome>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ kind: 'timeout' });
    }, request.timeoutMs);
  });
  const exchange = (async (): Promise<HttpOutcome> => {
    const response = await fetchFn(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
      // A redirect would carry the key headers to wherever it points: treat it as an answer.
      redirect: 'manual',
    });
    const text = await response.text();
    return { kind: 'answer', status: response.status, headers: response.headers, text };
  })().catch((cause: unknown): HttpOutcome =>
    controller.signal.aborted ? { kind: 'timeout' } : { kind: 'network', cause },
  );
  try {
    return await Promise.race([exchange, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
