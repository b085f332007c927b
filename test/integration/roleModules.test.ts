import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import {
  createTestQueuePrefix,
  useTestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';

// A process loads the code of the roles it runs, and the console on its first page: an ingress
// in a fleet does not carry the mirror writer, the scheduler or the console's pages.
const test = useTestDatabase();
let queue: TestQueuePrefix;
const ADMIN_TOKEN = 'role-modules-admin-token-0123456789abcdef';
const LOADER = fileURLToPath(new URL('../support/loadedModules.mjs', import.meta.url));

beforeAll(() => {
  queue = createTestQueuePrefix();
});
afterAll(async () => {
  await queue?.drop();
});

/** Starts `--role <roles>`, runs `whileUp` against it, stops it; the dist/ modules it loaded. */
async function modulesLoadedBy(
  roles: string,
  whileUp: (admin: string) => Promise<void> = async () => {},
): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'paymirror-modules-'));
  const list = join(dir, 'loaded.txt');
  const run = runCli(['start', '--role', roles, '--no-migrate'], {
    DATABASE_URL: test().url,
    REDIS_URL: queue.redisUrl,
    QUEUE_PREFIX: queue.prefix,
    PORT: '0',
    HOST: '127.0.0.1',
    METRICS_PORT: '0',
    ADMIN_TOKEN,
    SPOOL_DIR: join(dir, 'spool'),
    PAYMIRROR_NODE_FLAGS: `--import=${LOADER}`,
    PAYMIRROR_TEST_LOADED_MODULES: list,
  });
  try {
    const [, admin] = await run.waitForOutput(/"metricsUrl":"([^"]+)"[^\n]*paymirror started/);
    await whileUp(admin as string);
  } finally {
    run.child.kill('SIGTERM');
    await run.exited;
  }
  return readFileSync(list, 'utf8')
    .split('\n')
    .filter((url) => url.includes('/dist/'))
    .map((url) => url.slice(url.indexOf('/dist/') + '/dist/'.length));
}

describe('what each role loads', () => {
  it('an ingress loads neither the writer, the scheduler nor the console', async () => {
    const loaded = await modulesLoadedBy('ingress');
    expect(loaded).toContain('runtime/ingressRole.js');
    expect(loaded).toContain('inbox/batchedStore.js');
    for (const absent of [
      'runtime/workerRole.js',
      'worker/notificationWorker.js',
      'mirror/applyToMirror.js',
      'runtime/schedulerRole.js',
      'reconciler/reconcileScheduler.js',
      'console/router.js',
    ]) {
      expect(loaded).not.toContain(absent);
    }
  });

  it('a worker loads the writer and not the ingress role', async () => {
    const loaded = await modulesLoadedBy('worker');
    expect(loaded).toContain('runtime/workerRole.js');
    expect(loaded).toContain('mirror/applyToMirror.js');
    expect(loaded).not.toContain('runtime/ingressRole.js');
    expect(loaded).not.toContain('runtime/schedulerRole.js');
  });

  it('the console is loaded by its first page', async () => {
    const loaded = await modulesLoadedBy('ingress', async (admin) => {
      const page = await fetch(`${admin}/console/health`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
    });
    expect(loaded).toContain('console/router.js');
  });
});
