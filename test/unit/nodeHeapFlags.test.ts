import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

// bin/paymirror pins V8's heap sizes so that a process peaks alike on every supported Node:
// from Node 24 a semi-space defaults to 64 MB at a 512 MB old space (16 before), and the
// ingress peaked about 110 MB higher. V8's heap limit is the old space plus three semi-spaces.
let dir: string;
let preload: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paymirror-heap-'));
  preload = join(dir, 'heapLimit.mjs');
  await writeFile(
    preload,
    "import v8 from 'node:v8';\n" +
      'process.stderr.write(`heap limit MB ${v8.getHeapStatistics().heap_size_limit / 2 ** 20}\\n`);\n' +
      'process.stderr.write(`malloc arenas ${process.env.MALLOC_ARENA_MAX ?? "unset"}\\n`);\n' +
      'process.stderr.write(`node flags ${process.execArgv.join(" ")}\\n`);\n',
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What node was started with by bin/paymirror: its heap limit, flags and glibc's arena limit. */
async function startedWith(
  env: Record<string, string>,
): Promise<{ heapLimitMb: number; mallocArenas: string; nodeFlags: string[] }> {
  // bin/paymirror runs the node on PATH: the one running this suite (CI runs it on 22 and 24).
  const path = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;
  const run = runCli(['--version'], { PATH: path, NODE_OPTIONS: `--import=${preload}`, ...env });
  const [, limit] = await run.waitForOutput(/heap limit MB (\d+)/);
  const [, arenas] = await run.waitForOutput(/malloc arenas (\S+)/);
  const [, flags] = await run.waitForOutput(/node flags (.*)/);
  expect((await run.exited).code).toBe(0);
  return {
    heapLimitMb: Number(limit),
    mallocArenas: arenas ?? '',
    nodeFlags: (flags ?? '').split(' '),
  };
}

describe('the heap sizes bin/paymirror starts node with', () => {
  it('by default, a 512 MB old space and 16 MB semi-spaces, whatever the Node version', async () => {
    expect((await startedWith({})).heapLimitMb).toBe(512 + 3 * 16);
  });

  it('PAYMIRROR_MAX_SEMI_SPACE_MB and PAYMIRROR_MAX_OLD_SPACE_MB override them', async () => {
    const started = await startedWith({
      PAYMIRROR_MAX_SEMI_SPACE_MB: '8',
      PAYMIRROR_MAX_OLD_SPACE_MB: '1024',
    });
    expect(started.heapLimitMb).toBe(1024 + 3 * 8);
  });
});

// At V8's own growth (about 1.4x at a 512 MB limit) an ingress under load ran 20-30 full
// collections in 10 s; at 1.7x, 7-10 (bench/PERFORMANCE.md).
describe('how far bin/paymirror lets the old generation grow between full collections', () => {
  it('70 % by default, PAYMIRROR_HEAP_GROWING_PERCENT when set', async () => {
    expect((await startedWith({})).nodeFlags).toContain('--heap-growing-percent=70');
    expect((await startedWith({ PAYMIRROR_HEAP_GROWING_PERCENT: '100' })).nodeFlags).toContain(
      '--heap-growing-percent=100',
    );
  });
});

// Node gives V8 four background threads on any machine; on two cores shared with Postgres and
// Redis one drained a backlog faster (bench/PERFORMANCE.md, session 30).
describe("V8's background threads bin/paymirror starts node with", () => {
  it('a core less than the machine has (1 to 4), PAYMIRROR_V8_POOL_SIZE when set', async () => {
    const cores = availableParallelism();
    const expected = Math.min(4, Math.max(1, cores - 1));
    expect((await startedWith({})).nodeFlags).toContain(`--v8-pool-size=${expected}`);
    expect((await startedWith({ PAYMIRROR_V8_POOL_SIZE: '3' })).nodeFlags).toContain(
      '--v8-pool-size=3',
    );
  });
});

describe('PAYMIRROR_NODE_FLAGS', () => {
  it('adds node flags beside the heap flags (a CPU profile of the process as it runs)', async () => {
    const flags = (await startedWith({ PAYMIRROR_NODE_FLAGS: '--stack-size=900  --no-warnings' }))
      .nodeFlags;
    expect(flags).toEqual(expect.arrayContaining(['--stack-size=900', '--no-warnings']));
    expect(flags).toContain('--heap-growing-percent=70');
    expect(flags).toContain('--max-old-space-size=512');
  });
});

describe('the malloc arenas bin/paymirror starts node with', () => {
  it('two by default, an operator’s MALLOC_ARENA_MAX when set', async () => {
    expect((await startedWith({})).mallocArenas).toBe('2');
    expect((await startedWith({ MALLOC_ARENA_MAX: '' })).mallocArenas).toBe('2');
    expect((await startedWith({ MALLOC_ARENA_MAX: '8' })).mallocArenas).toBe('8');
  });
});
