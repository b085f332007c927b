import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keepOwnMappings } from '../../scripts/ownSourceMap.mjs';

// dist/cli/launch.mjs (src/launch/), as built, run beside a small bundle of its own instead of
// paymirror's, its source map trimmed as scripts/bundle.mjs trims paymirror's: the code cache
// the launcher keeps and the stack traces it maps.
const LAUNCHER = fileURLToPath(new URL('../../dist/cli/launch.mjs', import.meta.url));

// own.cjs is required before the package: its code comes first in the bundle, so that the
// package's frames follow paymirror's mappings, as they do in paymirror's bundle.
const FIXTURE = `import { own } from './own.cjs';
import { fromPackage } from 'pkg';

export function answer(args: string[]): string {
  return \`ran \${args.join(' ')}\`;
}

function fail(): never {
  throw new Error('fixture failure');
}

process.stdout.write(\`\${answer(process.argv.slice(2))}\\n\`);
if (process.argv.includes('fail')) fail();
if (process.argv.includes('package')) own(fromPackage);
`;

const OWN = `exports.own = function own(next) {\n  return next();\n};\n`;

const PACKAGE = `exports.fromPackage = function fromPackage() {\n  throw new Error('package failure');\n};\n`;

let dir: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paymirror-launcher-'));
  copyFileSync(LAUNCHER, join(dir, 'launch.mjs'));
  await buildFixture('');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function buildFixture(extra: string): Promise<void> {
  writeFileSync(join(dir, 'fixture.ts'), FIXTURE + extra);
  writeFileSync(join(dir, 'own.cjs'), OWN);
  mkdirSync(join(dir, 'node_modules', 'pkg'), { recursive: true });
  writeFileSync(join(dir, 'node_modules', 'pkg', 'index.js'), PACKAGE);
  await build({
    entryPoints: [join(dir, 'fixture.ts')],
    outfile: join(dir, 'paymirror.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    sourcemap: true,
    sourcesContent: false,
    logLevel: 'silent',
  });
  const mapFile = join(dir, 'paymirror.cjs.map');
  const sources = () =>
    (JSON.parse(readFileSync(mapFile, 'utf8')) as { sources: string[] }).sources;
  expect(sources()).toEqual(['own.cjs', 'node_modules/pkg/index.js', 'fixture.ts']);
  await keepOwnMappings(mapFile);
  expect(sources()).toEqual(['own.cjs', 'fixture.ts']);
}

function launch(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [join(dir, 'launch.mjs'), ...args], {
    encoding: 'utf8',
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function caches(): string[] {
  try {
    return readdirSync(join(dir, 'code-cache')).sort();
  } catch {
    return [];
  }
}

describe('the launcher', () => {
  it('runs the bundle with its arguments', () => {
    expect(launch('report', 'daily')).toMatchObject({ status: 0, stdout: 'ran report daily\n' });
  });

  it('writes a code cache for each command as it first exits, then runs on it unchanged', () => {
    launch('start', '--role', 'worker');
    launch('report', 'daily', '--date', '2026-11-28');
    const written = caches();
    expect(written).toHaveLength(2);
    expect(written[0]).toMatch(/^report\.daily\.v8-/);
    expect(written[1]).toMatch(/^start\.worker\.v8-/);
    const file = join(dir, 'code-cache', written[1] ?? '');
    // Written again it would be a new file (a rename): the same inode means it was used as it was.
    const before = readFileSync(file);
    const inode = statSync(file).ino;
    expect(launch('start', '--role', 'worker')).toMatchObject({ status: 0 });
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(statSync(file).ino).toBe(inode);
  });

  it('runs a rebuilt bundle without the last build cache, and writes its own', async () => {
    launch('start');
    const [old] = caches();
    await buildFixture('export const rebuilt = true;\n');
    expect(launch('start')).toMatchObject({ status: 0, stdout: 'ran start\n' });
    const now = caches();
    expect(now).toHaveLength(2);
    expect(now).toContain(old);
  });

  it('runs without a cache V8 refuses, and replaces it', () => {
    launch('start');
    const [name] = caches();
    const file = join(dir, 'code-cache', name ?? '');
    writeFileSync(file, Buffer.alloc(4096, 7));
    expect(launch('start')).toMatchObject({ status: 0, stdout: 'ran start\n' });
    expect(readFileSync(file).equals(Buffer.alloc(4096, 7))).toBe(false);
    expect(launch('start')).toMatchObject({ status: 0, stdout: 'ran start\n' });
  });

  it('runs where it cannot write a cache (a read-only install)', () => {
    writeFileSync(join(dir, 'code-cache'), 'not a directory');
    expect(launch('start')).toMatchObject({ status: 0, stdout: 'ran start\n' });
    expect(readdirSync(dir).filter((name) => name.includes('partial'))).toEqual([]);
  });

  it("names the bundle's own sources in a stack trace, cached or not", () => {
    for (const round of [1, 2]) {
      const { status, stderr } = launch('fail', String(round));
      expect(status).toBe(1);
      expect(stderr).toContain('Error: fixture failure');
      expect(stderr).toMatch(new RegExp(`at fail \\(${dir}/fixture\\.ts:9:9\\)`));
      expect(stderr).toMatch(new RegExp(`${dir}/fixture\\.ts:13:\\d+\\)`));
      expect(caches()).toHaveLength(1);
    }
  });

  it("leaves a package's frames at the bundle's line and column", () => {
    const { status, stderr } = launch('package');
    expect(status).toBe(1);
    expect(stderr).toContain('Error: package failure');
    expect(stderr).toMatch(new RegExp(`at fromPackage\\d* \\(${dir}/paymirror\\.cjs:\\d+:\\d+\\)`));
    expect(stderr).toMatch(new RegExp(`at own\\d* \\(${dir}/own\\.cjs:2:10\\)`));
  });
});
