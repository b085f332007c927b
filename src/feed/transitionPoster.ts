import { WaitingError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Sql } from '../db/client.js';
import type { Logger } from '../log/logger.js';
import { TRANSITIONS_QUEUE, transitionJobId, type TransitionJob } from '../queue/catalog.js';
import { verifyTransition } from './verifyTransition.js';

export interface TransitionPosterOptions {
  readonly url: string;
  readonly connection: ConnectionOptions;
  readonly prefix: string;
  readonly logger: Logger;
  /** Every job is checked against status_history before it is posted. */
  readonly sql: Sql;
  /** A job that matched no published history row was dropped (an injected job). */
  readonly onDropped: () => void;
  readonly timeoutMs?: number;
  readonly maxDelayMs?: number;
}

/**
 * Consumes the transitions queue and POSTs each transition to an internal URL, one at a time
 * so each record's transitions arrive in order. A failed POST is retried in place with
 * backoff (letting the job fail would let later transitions overtake it); the receiver
 * dedupes on the Idempotency-Key header, the same for every attempt of one transition.
 */
export function startTransitionPoster(options: TransitionPosterOptions): {
  close(): Promise<void>;
} {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const closing = new AbortController();
  const worker = new Worker<unknown>(
    TRANSITIONS_QUEUE,
    async (job: Job<unknown>, token?: string) => {
      const verified = await verifyTransition(options.sql, job.data);
      if (!verified.ok) {
        options.onDropped();
        options.logger.warn({ jobId: job.id, reason: verified.reason }, 'transition job dropped');
        return;
      }
      const transition = verified.transition;
      for (let attempt = 0; ; attempt += 1) {
        const failure = await post(options.url, transition, timeoutMs, closing.signal);
        if (failure === null) return;
        if (!closing.signal.aborted) {
          const delay = Math.min(maxDelayMs, 250 * 2 ** Math.min(attempt, 12));
          options.logger.warn(
            { historyId: transition.historyId, attempt: attempt + 1, failure, retryInMs: delay },
            'transition POST failed; retrying',
          );
          await sleep(delay, closing.signal);
        }
        if (closing.signal.aborted) {
          // Back to the head of the queue, not failed: with one attempt a job, a failed one
          // would never be posted, and the record's later transitions would overtake it.
          await job.moveToWait(token);
          options.logger.warn(
            { historyId: transition.historyId, failure },
            'transition not delivered before shutdown; left first in the queue for the next start',
          );
          throw new WaitingError();
        }
      }
    },
    { connection: options.connection, prefix: options.prefix, concurrency: 1 },
  );
  worker.on('error', (error) => options.logger.warn({ err: error }, 'transition poster error'));
  return {
    async close() {
      closing.abort();
      await worker.close();
    },
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Null on a 2xx answer, else what went wrong. A shutdown aborts a POST in flight rather than
 * waiting out its timeout: the job goes back to the queue, and the receiver dedupes the
 * repeat on its Idempotency-Key if this one did arrive.
 */
async function post(
  url: string,
  transition: TransitionJob,
  timeoutMs: number,
  closing: AbortSignal,
): Promise<string | null> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'idempotency-key': transitionJobId(transition.historyId),
      },
      body: JSON.stringify(transition),
      signal: AbortSignal.any([closing, AbortSignal.timeout(timeoutMs)]),
      redirect: 'manual',
    });
    await response.arrayBuffer().catch(() => undefined);
    return response.ok ? null : `HTTP ${response.status}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
