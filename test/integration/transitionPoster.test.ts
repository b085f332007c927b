import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTransitionPoster } from '../../src/feed/transitionPoster.js';
import {
  createTransitionQueue,
  publishTransitions,
  type TransitionQueue,
} from '../../src/feed/transitionPublisher.js';
import { createLogger } from '../../src/log/logger.js';
import { transitionJobId, transitionJobSchema } from '../../src/queue/catalog.js';
import { waitFor } from '../support/paymirror.js';
import {
  createTestQueuePrefix,
  useTestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';

// The poster stopped while the receiver fails: the transition it held must still be posted by
// the next process, before the record's later ones.
const db = useTestDatabase();
const silent = createLogger({ level: 'silent' });
let queuePrefix: TestQueuePrefix;
let queue: TransitionQueue;
let receiver: Server;
let url = '';
let answer = 500;
const posted: { historyId: number; status: number }[] = [];

beforeAll(async () => {
  queuePrefix = createTestQueuePrefix();
  queue = createTransitionQueue({ url: queuePrefix.redisUrl }, queuePrefix.prefix);
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { historyId } = transitionJobSchema.parse(JSON.parse(body));
      posted.push({ historyId, status: answer });
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/transitions`;
});
afterAll(async () => {
  await queue?.close();
  await queuePrefix?.drop();
  await new Promise((resolve) => receiver?.close(resolve));
});

function startPoster() {
  return startTransitionPoster({
    url,
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
    await waitFor(async () => (posted.length > 0 ? true : undefined), {
      what: 'the first POST, answered 500',
    });
    await failing.close();
    const held = await queue.getJob(transitionJobId(first ?? 0));
    expect(await held?.getState()).toBe('waiting');

    answer = 200;
    const next = startPoster();
    try {
      await waitFor(async () => (posted.some((p) => p.historyId === second) ? true : undefined), {
        what: 'both transitions posted',
      });
    } finally {
      await next.close();
    }
    expect(posted.filter((p) => p.status === 200).map((p) => p.historyId)).toEqual([first, second]);
    expect(posted.every((p) => p.historyId === first || p.status === 200)).toBe(true);
  });
});
