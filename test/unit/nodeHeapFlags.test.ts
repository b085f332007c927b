import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../support/cli.js';

// bin/paymirror's runtime defaults (docs/scaling.md, "Runtime flags"). It pins V8's heap sizes
// so that a process peaks alike on every supported Node, and lower: at a 512 MB old space a
// semi-space defaults to 16 MB (64 from Node 24); bin/paymirror takes 8. V8's heap limit is the
// old space plus three semi-spaces.
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
  it('by default, a 512 MB old space and 8 MB semi-spaces, whatever the Node version', async () => {
    expect((await startedWith({})).heapLimitMb).toBe(512 + 3 * 8);
  });

  it('PAYMIRROR_MAX_SEMI_SPACE_MB and PAYMIRROR_MAX_OLD_SPACE_MB override them', async () => {
    const started = await startedWith({
      PAYMIRROR_MAX_SEMI_SPACE_MB: '16',
      PAYMIRROR_MAX_OLD_SPACE_MB: '1024',
    });
    expect(started.heapLimitMb).toBe(1024 + 3 * 16);
  });
});

// At V8's own growth (about 1.4x at a 512 MB limit) an ingress under load ran 20-30 full
// collections in 10 s; at 1.7x, 7-10.
describe('how far bin/paymirror lets the old generation grow between full collections', () => {
  it('70 % by default, PAYMIRROR_HEAP_GROWING_PERCENT when set', async () => {
    expect((await startedWith({})).nodeFlags).toContain('--heap-growing-percent=70');
    expect((await startedWith({ PAYMIRROR_HEAP_GROWING_PERCENT: '100' })).nodeFlags).toContain(
      '--heap-growing-percent=100',
    );
  });
});

// Node gives V8 four background threads on any machine; on two cores shared with Postgres and
// Redis one drained a backlog faster.
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

describe('the source maps bin/paymirror starts node with', () => {
  it('map stack traces to src/ (tsc writes the maps beside dist/)', async () => {
    expect((await startedWith({})).nodeFlags).toContain('--enable-source-maps');
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

/** The defaults bin/paymirror writes as `${NAME:-value}`, by variable. */
function binDefaults(): Record<string, string> {
  const text = readFileSync(BIN, 'utf8');
  return Object.fromEntries(
    [...text.matchAll(/\$\{(\w+):-([^}]+)\}/g)].map((match) => [match[1], match[2]]),
  );
}

/** The ENV settings of the Dockerfile (its continuation lines joined). */
function dockerfileEnv(): Record<string, string> {
  const text = readFileSync('Dockerfile', 'utf8').replace(/\\\n\s*/g, ' ');
  const pairs = [...text.matchAll(/^ENV (.+)$/gm)].flatMap((line) => [
    ...(line[1] ?? '').matchAll(/(\w+)=(\S+)/g),
  ]);
  return Object.fromEntries(pairs.map((pair) => [pair[1], pair[2]]));
}

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are untyped YAML */
function kubernetesDocs(file: string): any[] {
  return parseAllDocuments(readFileSync(`deploy/kubernetes/${file}`, 'utf8')).map((doc) =>
    doc.toJS(),
  );
}

describe("the image and the manifests state bin/paymirror's defaults", () => {
  const stated = binDefaults();

  it('bin/paymirror has defaults to state', () => {
    expect(Object.keys(stated).sort()).toEqual([
      'MALLOC_ARENA_MAX',
      'PAYMIRROR_HEAP_GROWING_PERCENT',
      'PAYMIRROR_MAX_OLD_SPACE_MB',
      'PAYMIRROR_MAX_SEMI_SPACE_MB',
    ]);
  });

  it('the Dockerfile sets each to the same value', () => {
    expect(dockerfileEnv()).toMatchObject(stated);
  });

  it('the ConfigMap too, and V8 helper threads a core below the pods’ CPU limit', () => {
    const [config] = kubernetesDocs('configmap.yaml');
    expect(config.data).toMatchObject(stated);
    const limits = ['ingress.yaml', 'worker.yaml', 'scheduler.yaml']
      .flatMap(kubernetesDocs)
      .filter((doc) => doc?.spec?.template)
      .flatMap((doc) => doc.spec.template.spec.containers)
      .map((container) => String(container.resources.limits.cpu))
      .map((cpu) => (cpu.endsWith('m') ? Number(cpu.slice(0, -1)) / 1000 : Number(cpu)));
    expect(limits.length).toBe(3);
    const cores = Math.ceil(Math.max(...limits));
    expect(config.data.PAYMIRROR_V8_POOL_SIZE).toBe(String(Math.max(1, cores - 1)));
  });
});
