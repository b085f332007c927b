import { classifyErrorBody } from './errorBody.js';
import { GatewayError } from './gatewayError.js';
import { sendOnce } from './http.js';
import type { HttpOutcome } from './http.js';
import type { NotOursGate } from './notOursGate.js';
import type { ClientSettings, GatewayVerdict } from './options.js';
import { isRetryable, retryDelayMs } from './retry.js';
import { parseRetryAfter } from './retryAfter.js';
import type { GatewayEndpoint } from './types.js';

interface GatewayRequest {
  readonly endpoint: GatewayEndpoint;
  readonly method: 'GET' | 'POST';
  /** Starts with "/", relative to baseUrl. */
  readonly path: string;
  /** Already serialised JSON, for POSTs. */
  readonly body?: string;
  /** Only the GETs: a POST is sent exactly once, whatever happens. */
  readonly retry: boolean;
  /** The base URL check itself: its 404 is judged by the check, not the not-ours gate. */
  readonly ungated?: boolean;
}

/** Sends a request and returns the 2xx body text, or throws a GatewayError. */
export type Transport = (request: GatewayRequest) => Promise<string>;

export function createTransport(
  settings: ClientSettings,
  redact: (text: string) => string,
): Transport {
  const baseHeaders = {
    Accept: 'application/json',
    'X-Api-Public-Key': settings.publicKey,
    'X-Api-Private-Key': settings.privateKey,
  };

  async function attempt(request: GatewayRequest): Promise<string> {
    await settings.rateLimiter.acquire();
    const started = performance.now();
    const outcome = await sendOnce(settings.fetch, {
      url: settings.baseUrl + request.path,
      method: request.method,
      headers:
        request.method === 'POST'
          ? { ...baseHeaders, 'Content-Type': 'application/json' }
          : baseHeaders,
      body: request.body,
      timeoutMs: settings.timeoutMs,
    });
    const succeeded = outcome.kind === 'answer' && outcome.status >= 200 && outcome.status < 300;
    const failure = succeeded ? null : gated(request, errorFor(request.endpoint, outcome));
    settings.onCall({
      endpoint: request.endpoint,
      status: outcome.kind === 'answer' ? outcome.status : outcome.kind,
      durationMs: performance.now() - started,
      verdict: failure ? verdictOf(failure) : 'ok',
    });
    if (failure) throw failure;
    return (outcome as { text: string }).text;
  }

  function errorFor(endpoint: GatewayEndpoint, outcome: HttpOutcome): GatewayError {
    switch (outcome.kind) {
      case 'timeout':
        return new GatewayError({
          endpoint,
          kind: 'timeout',
          message: `${endpoint}: no answer within ${settings.timeoutMs} ms`,
        });
      case 'network':
        return new GatewayError({
          endpoint,
          kind: 'network',
          message: `${endpoint}: no answer from the gateway${describeCause(outcome.cause)}`,
          cause: outcome.cause,
        });
      case 'answer': {
        const body = classifyErrorBody(outcome.text);
        return new GatewayError({
          endpoint,
          kind: 'http',
          status: outcome.status,
          message: redact(body.message || `HTTP ${outcome.status}`),
          shape: body.shape,
          errorType: body.errorType === null ? null : redact(body.errorType),
          code: body.code === null ? null : redact(body.code),
          retryAfterSeconds: parseRetryAfter(outcome.headers.get('retry-after'), Date.now()),
          rawAnswer: redact(outcome.text),
        });
      }
    }
  }

  /** A "not ours" the gate holds back becomes "cannot tell now". */
  function gated(request: GatewayRequest, error: GatewayError): GatewayError {
    const gate = settings.notOursGate;
    if (!gate || request.ungated || !error.isNotOurs || gate.admit()) return error;
    return new GatewayError({
      endpoint: error.endpoint,
      kind: error.kind,
      status: error.status,
      message: `${error.message} (not read as "not ours": ${withheldReason(gate)})`,
      shape: error.shape,
      errorType: error.errorType,
      code: error.code,
      retryAfterSeconds: error.retryAfterSeconds,
      rawAnswer: error.rawAnswer,
      notOursWithheld: true,
    });
  }

  return async function send(request: GatewayRequest): Promise<string> {
    const tries = request.retry ? settings.retry.attempts : 1;
    for (let retryIndex = 0; ; retryIndex += 1) {
      try {
        return await attempt(request);
      } catch (error) {
        const last = retryIndex + 1 >= tries;
        if (last || !(error instanceof GatewayError) || !isRetryable(error)) throw error;
        await settings.sleep(
          retryDelayMs(retryIndex, error.retryAfterSeconds, settings.retry, settings.random),
        );
      }
    }
  };
}

function withheldReason(gate: NotOursGate): string {
  const { pausedUntil } = gate.status();
  return pausedUntil
    ? `too many such answers at once, paused until ${pausedUntil.toISOString()}`
    : 'the GATEWAY_BASE_URL check has not passed yet';
}

function verdictOf(error: GatewayError): GatewayVerdict {
  if (error.isNotOurs) return 'not_ours';
  return error.isTransient ? 'transient' : 'indeterminate';
}

/** " (ECONNREFUSED)": the system error code only, never a message that might quote a header. */
function describeCause(cause: unknown): string {
  const code = errorCode(cause) ?? errorCode((cause as { cause?: unknown } | null)?.cause);
  return code ? ` (${code})` : '';
}

function errorCode(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const code = (value as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? code : null;
}
