import type { Config } from '../config/config.js';
import { createDatabase, type Database } from '../db/client.js';
import { checkSchemaVersion } from '../db/schemaVersion.js';
import { requirePostgres, requireRedis } from '../runtime/dependencies.js';
import { createCommandRedis, queuePrefixFor } from '../runtime/redis.js';
import {
  createNotificationQueue,
  NOTIFICATIONS_QUEUE,
  type NotificationQueue,
} from '../queue/catalog.js';
import { loadConfig } from './environment.js';

/** Opens the database for a command (its schema checked, never migrated), runs `fn`, closes it. */
export async function withDatabase<T>(
  fn: (context: { config: Config; database: Database }) => Promise<T>,
): Promise<T> {
  const config = loadConfig();
  await requirePostgres(config.databaseUrl);
  const database = createDatabase(config.databaseUrl, { max: 2 });
  try {
    await checkSchemaVersion(database.sql);
    return await fn({ config, database });
  } finally {
    await database.close();
  }
}

/**
 * The notifications queue for a command that enqueues, started before `fn` and closed after.
 * Started first because BullMQ's close() on a shared connection does not wait for a queue's
 * start (a version read): a command that enqueued nothing disconnected under that read, which
 * then failed on an emitter close() had already stripped of listeners, and the process died.
 */
export async function withQueue<T>(
  config: Config,
  fn: (queue: NotificationQueue) => Promise<T>,
): Promise<T> {
  await requireRedis(config.redis);
  const redis = createCommandRedis(config.redis);
  const queue = createNotificationQueue(redis, queuePrefixFor(config, NOTIFICATIONS_QUEUE));
  try {
    await queue.waitUntilReady();
    return await fn(queue);
  } finally {
    await queue.close();
    redis.disconnect();
  }
}
