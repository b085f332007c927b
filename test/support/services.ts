import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import postgres from 'postgres';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';

/** A fresh, migrated database for one test file; `drop()` removes it. */
export interface TestDatabase {
  readonly url: string;
  readonly database: Database;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `pm_test_${randomBytes(6).toString('hex')}`;
  const url = withDatabase(inject('databaseUrl'), name);
  await runMigrations(url);
  const database = createDatabase(url, { max: 5 });
  return {
    url,
    database,
    async drop() {
      await database.close();
      await dropTestDatabase(name);
    },
  };
}

/**
 * The test file's own database, created before its tests and dropped after them: call at the
 * top of a describe (or the file), read the result inside tests.
 */
export function useTestDatabase(): () => TestDatabase {
  let test: TestDatabase | undefined;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => {
    await test?.drop();
  });
  return () => {
    if (!test) throw new Error('useTestDatabase: the database is not created yet');
    return test;
  };
}

/** Drops a database of the test server, its connections forced out. */
export async function dropTestDatabase(name: string): Promise<void> {
  const admin = postgres(withDatabase(inject('databaseUrl'), 'postgres'), {
    max: 1,
    onnotice: () => {},
  });
  try {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** A BullMQ prefix of this test file's own; `drop()` deletes its keys (other files share Redis). */
export interface TestQueuePrefix {
  readonly prefix: string;
  readonly redisUrl: string;
  deleteKeys(pattern?: string): Promise<number>;
  drop(): Promise<void>;
}

/**
 * This file's prefixes not dropped yet. A test that forgets its prefix (a paymirror started on
 * `createTestQueuePrefix()` inline, its jobs waiting for a worker it never starts) would leave
 * its keys in Redis: the file's end drops them, after the file's own hooks have closed what ran.
 */
const undropped = new Set<TestQueuePrefix>();
afterAll(async () => {
  for (const queue of undropped) await queue.drop();
});

export function createTestQueuePrefix(): TestQueuePrefix {
  // The test file's name in the prefix: keys a file leaves behind say whose they are.
  const file = basename(expect.getState().testPath ?? 'unknown').replace(/\.test\.ts$/, '');
  const prefix = `pmtest-${file}-${randomBytes(6).toString('hex')}`;
  const redisUrl = inject('redisUrl');
  const deleteKeys = async (pattern = '*') => {
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
    try {
      let deleted = 0;
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(
          cursor,
          'MATCH',
          `${prefix}:${pattern}`,
          'COUNT',
          500,
        );
        cursor = next;
        if (keys.length > 0) deleted += await redis.del(...keys);
      } while (cursor !== '0');
      return deleted;
    } finally {
      redis.disconnect();
    }
  };
  const queue: TestQueuePrefix = {
    prefix,
    redisUrl,
    deleteKeys,
    drop: async () => {
      undropped.delete(queue);
      await deleteKeys();
    },
  };
  undropped.add(queue);
  return queue;
}
