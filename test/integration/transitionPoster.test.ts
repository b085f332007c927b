import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTransitionPoster } from '../../src/feed/transitionPoster.js';
import {
  createTransitionQueue,
  publishTransitions,
  type TransitionQueue,
} from '../../src/feed/transitionPublisher.js';
import { createLogger } from '../../src/log/logger.js';
import { transitionJobId } from '../../src/queue/catalog.js';
import { waitFor } from '../support/paymirror.js';
import {
  createTestQueuePrefix,
  useTestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';
import { startTransitionReceiver, type TransitionReceiver } from '../support/transitionReceiver.js';

// The poster stopped while the receiver fails: the transition it held must still be posted by
// the next process, before the record's later ones.
const db = useTestDatabase();
const silent = createLogger({ level: 'silent' });
let queuePrefix: TestQueuePrefix;
let queue: TransitionQueue;
let receiver: TransitionReceiver | undefined;
let answer = 500;

beforeAll(async () => {
  queuePrefix = createTestQueuePrefix();
  queue = createTransitionQueue({ url: queuePrefix.redisUrl }, queuePrefix.prefix);
  receiver = await startTransitionReceiver(() => answer);
});
afterAll(async () => {
  await queue?.close();
  await queuePrefix?.drop();
  await receiver?.close();
});

function startPoster(url = receiver?.url ?? '', timeoutMs?: number) {
  return startTransitionPoster({
    url,
    timeoutMs,
    connection: { url: queuePrefix.redisUrl },
    prefix: queuePrefix.prefix,
    logger: silent,
    sql: db().database.sql,
    onDropped: () => undefined,
  });
}

describe('a transition the receiver has not taken when the poster stops', () => {
  it('goes back to the head of the queue, and the next poster posts it first', async () => {
    const { sql } = db().database;
    const history = await sql<{ id: string }[]>`
      insert into status_history (resource_type, resource_id, from_status, to_status, source)
      values ('sale', 9301, null, 'PAGO', 'api'), ('sale', 9301, 'PAGO', 'ESTORNADO', 'api')
      returning id`;
    const [first, second] = history.map((row) => Number(row.id));
    expect(await publishTransitions(sql, queue)).toBe(2);

    const failing = startPoster();
    const posted = () => receiver?.received ?? [];
    await waitFor(async () => (posted().length > 0 ? true : undefined), {
      what: 'the first POST, answered 500',
    });
    await failing.close();
    const held = await queue.getJob(transitionJobId(first ?? 0));
    expect(await held?.getState()).toBe('waiting');

    answer = 200;
    const next = startPoster();
    try {
      await waitFor(
        async () => (posted().some((p) => p.transition.historyId === second) ? true : undefined),
        {
          what: 'both transitions posted',
        },
      );
    } finally {
      await next.close();
    }
    expect(
      posted()
        .filter((p) => p.answered === 200)
        .map((p) => p.transition.historyId),
    ).toEqual([first, second]);
    expect(posted().every((p) => p.transition.historyId === first || p.answered === 200)).toBe(
      true,
    );
  });
});

describe('a POST in flight when the poster stops', () => {
  it('is aborted rather than waited out, and its job goes back to the queue', async () => {
    const { sql } = db().database;
    const [row] = await sql<{ id: string }[]>`
      insert into status_history (resource_type, resource_id, from_status, to_status, source)
      values ('sale', 9302, null, 'PAGO', 'api')
      returning id`;
    const historyId = Number(row?.id);
    expect(await publishTransitions(sql, queue)).toBe(1);
    const silentReceiver = await startTransitionReceiver(() => 'hang');
    try {
      // A timeout longer than the test's own: close() returns only if the POST is aborted.
      const poster = startPoster(silentReceiver.url, 10 * 60_000);
      await waitFor(async () => (silentReceiver.received.length > 0 ? true : undefined), {
        what: 'the POST, held unanswered',
      });
      await poster.close();
      const held = await queue.getJob(transitionJobId(historyId));
      expect(await held?.getState()).toBe('waiting');
    } finally {
      await silentReceiver.close();
    }
  });
});
