import type { IncomingHttpHeaders } from 'node:http';
import { transitionJobSchema, type TransitionJob } from '../../src/queue/catalog.js';
import { bodyJson, startReceiver, type ReceiverAnswer } from '../sandbox/support/receiver.js';

export interface ReceivedTransition {
  readonly transition: TransitionJob;
  readonly headers: IncomingHttpHeaders;
  /** The status it was answered with, or 'hang' for a POST held unanswered. */
  readonly answered: ReceiverAnswer;
}

export interface TransitionReceiver {
  /** Where to POST transitions (TRANSITIONS_WEBHOOK_URL). */
  readonly url: string;
  /** Every POST, in arrival order, answered or not with a 2xx. */
  readonly received: ReceivedTransition[];
  close(): Promise<void>;
}

/** A consumer of the transition feed's POSTs: records each and answers with `status(it)`. */
export async function startTransitionReceiver(
  status: (transition: TransitionJob) => ReceiverAnswer,
): Promise<TransitionReceiver> {
  const received: ReceivedTransition[] = [];
  const receiver = await startReceiver((request) => {
    const transition = transitionJobSchema.parse(bodyJson(request));
    const answered = status(transition);
    received.push({ transition, headers: request.headers, answered });
    return answered;
  });
  return { url: `${receiver.url}/transitions`, received, close: () => receiver.close() };
}
