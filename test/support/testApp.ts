import { afterAll, beforeAll } from 'vitest';
import type { Sql } from '../../src/db/client.js';
import type { Logger } from '../../src/log/logger.js';
import { startTestPaymirror, type TestPaymirror } from './paymirror.js';
import {
  createTestQueuePrefix,
  useTestDatabase,
  type TestDatabase,
  type TestQueuePrefix,
} from './services.js';

export interface TestAppOptions {
  readonly roles?: string;
  readonly logger?: Logger;
  /** Read when the app starts (after the file's own beforeAll hooks registered before this). */
  readonly env?: () => Record<string, string>;
}

/** A test file's paymirror, its own database and its own queue prefix. */
export interface TestApp {
  readonly db: TestDatabase;
  readonly queue: TestQueuePrefix;
  readonly app: TestPaymirror;
  sql(): Sql;
}

/**
 * Starts paymirror for the file's tests (beforeAll) and removes it, its database and its
 * Redis keys afterwards (afterAll). Read the parts inside tests and hooks, not at load time.
 */
export function useTestApp(options: TestAppOptions = {}): TestApp {
  // Registered first, so its database is created before the app starts and dropped after the
  // app's afterAll has closed it (after hooks run in reverse order).
  const db = useTestDatabase();
  let queue: TestQueuePrefix | undefined;
  let app: TestPaymirror | undefined;
  beforeAll(async () => {
    queue = createTestQueuePrefix();
    app = await startTestPaymirror({
      db: db(),
      queue,
      ...(options.roles ? { roles: options.roles } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.env ? { env: options.env() } : {}),
    });
  });
  afterAll(async () => {
    await app?.close();
    await queue?.drop();
  });
  const started = <T>(part: T | undefined, name: string): T => {
    if (part === undefined) throw new Error(`useTestApp: ${name} is not started yet`);
    return part;
  };
  return {
    get db() {
      return db();
    },
    get queue() {
      return started(queue, 'queue');
    },
    get app() {
      return started(app, 'app');
    },
    sql: () => db().database.sql,
  };
}
