import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  files: string[];
  engines: { node: string };
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};

let packed: string[] | undefined;

/** The files `npm pack` would publish (of the built checkout), listed once per run. */
function packedPaths(): string[] {
  packed ??= listPacked();
  return packed;
}

function listPacked(): string[] {
  const [listing] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ) as { files: { path: string }[] }[];
  return (listing?.files ?? []).map((file) => file.path);
}

describe('packaging', () => {
  it('the published package and the image carry the patches its postinstall applies', () => {
    const patches = readdirSync('patches');
    expect(patches.length).toBeGreaterThan(0);
    expect(pkg.scripts.postinstall).toBe('patch-package');
    expect(pkg.dependencies).toHaveProperty('patch-package');
    const paths = packedPaths();
    for (const patch of patches) expect(paths).toContain(`patches/${patch}`);
    // Copied before the image's npm ci, which applies them.
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    expect(dockerfile.indexOf('COPY patches ./patches')).toBeGreaterThan(-1);
    expect(dockerfile.indexOf('COPY patches ./patches')).toBeLessThan(
      dockerfile.indexOf('RUN npm ci'),
    );
    expect(paths).toContain('bin/paymirror');
  });

  it('the published package carries dist/ as tsc builds it from src/, with its source maps', () => {
    const paths = packedPaths();
    expect(readFileSync('bin/paymirror', 'utf8')).toContain('"$here/dist/cli/main.js"');
    expect(paths).toContain('dist/cli/main.js');
    const built = paths.filter((path) => path.startsWith('dist/'));
    for (const path of built) {
      // Nothing but what tsc compiles from src/: a module and its map.
      const module = /^dist\/(.+)\.js(\.map)?$/.exec(path)?.[1];
      expect(module !== undefined && existsSync(`src/${module}.ts`), path).toBe(true);
      if (path.endsWith('.js')) expect(built, path).toContain(`${path}.map`);
    }
    expect(paths.some((path) => path.startsWith('migrations/'))).toBe(true);
  });

  it("the package and the image carry the console's own files", () => {
    expect(packedPaths()).toEqual(
      expect.arrayContaining(['assets/console/console.css', 'assets/console/console.js']),
    );
    expect(readFileSync('Dockerfile', 'utf8')).toMatch(/^COPY assets \.\/assets$/m);
    expect(Object.keys(pkg.dependencies)).toContain('chart.js');
  });

  it('one Node story: engines, the image, the README and .ci/run', () => {
    const images = [...readFileSync('Dockerfile', 'utf8').matchAll(/^FROM node:(\d+)/gm)].map(
      (match) => Number(match[1]),
    );
    expect(images.length).toBeGreaterThan(0);
    const [lts] = images;
    for (const major of images) expect(major).toBe(lts);
    expect(lts).toBeGreaterThanOrEqual(24);
    const minimum = /^>=\s*(\d+)\.(\d+)$/.exec(pkg.engines.node);
    expect(minimum, pkg.engines.node).not.toBeNull();
    const [, major, minor] = minimum ?? [];
    expect(Number(major)).toBeLessThan(lts ?? 0);
    const said = `Node ${major}.${minor} or later`;
    const quickStart = /## Quick start\n([\s\S]*?)\n## /.exec(readFileSync('README.md', 'utf8'));
    expect(quickStart?.[1]).toContain(said);
    expect(quickStart?.[1]).toContain(`Node ${lts}, the current LTS`);
    // CI runs the suite on this machine's node and the unit suite on every later LTS line.
    const ci = readFileSync('.ci/run', 'utf8');
    expect(ci).toContain(said);
    const lines = /for major in ([\d ]+); do/.exec(ci)?.[1]?.split(' ').map(Number) ?? [];
    expect(lines).toContain(lts);
    expect(lines.every((line) => line > Number(major) && line <= (lts ?? 0))).toBe(true);
  });

  it('the image copies from dist/ what the package publishes from it, and nothing more', () => {
    const copied = [
      ...readFileSync('Dockerfile', 'utf8').matchAll(/^COPY --from=build (.+) \S+$/gm),
    ]
      .flatMap((match) => (match[1] ?? '').split(/\s+/))
      .map((source) => source.replace(/^\/app\//, ''))
      .filter((source) => source.startsWith('dist'));
    expect(copied.sort()).toEqual(pkg.files.filter((file) => file.startsWith('dist')).sort());
  });
});

// Dependencies run as published (docs/scaling.md): a patch is a correctness fix that names its
// upstream issue, the test that fails without it, and when it goes.
describe('patches/', () => {
  const patches = readdirSync('patches').map((file) => readFileSync(`patches/${file}`, 'utf8'));

  it('holds at most 80 lines in all', () => {
    const lines = patches.reduce((sum, text) => sum + text.trimEnd().split('\n').length, 0);
    expect(lines).toBeLessThanOrEqual(80);
  });

  it('each names its upstream issue, its test and when to remove it', () => {
    for (const text of patches) {
      expect(text).toMatch(/https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/(issues|pull)\/\d+/);
      const test = /test\/[\w/]+\.test\.ts/.exec(text)?.[0] ?? '';
      expect(existsSync(test), `the test it names: ${test}`).toBe(true);
      expect(text).toMatch(/Remove this patch once/);
    }
  });
});
