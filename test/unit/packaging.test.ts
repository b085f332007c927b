import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  files: string[];
  engines: { node: string };
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
  it('the published package carries the patches its postinstall applies', () => {
    const paths = packedPaths();
    const patches = readFileSync('package.json', 'utf8').includes('patch-package')
      ? execFileSync('ls', ['patches'], { encoding: 'utf8' }).split('\n').filter(Boolean)
      : [];
    expect(patches.length).toBeGreaterThan(0);
    for (const patch of patches) expect(paths).toContain(`patches/${patch}`);
    expect(paths).toContain('bin/paymirror');
  });

  it('the published package carries the bundle bin/paymirror runs, not the modules it is built from', () => {
    const paths = packedPaths();
    expect(paths).toEqual(
      expect.arrayContaining([
        'dist/cli/launch.mjs',
        'dist/cli/paymirror.cjs',
        'dist/cli/paymirror.cjs.map',
      ]),
    );
    expect(paths.filter((path) => path.startsWith('dist/'))).toHaveLength(3);
    expect(paths.some((path) => path.startsWith('migrations/'))).toBe(true);
  });

  it("the package and the image carry the console's own files", () => {
    expect(packedPaths()).toEqual(
      expect.arrayContaining(['assets/console/console.css', 'assets/console/console.js']),
    );
    expect(readFileSync('Dockerfile', 'utf8')).toMatch(/^COPY assets \.\/assets$/m);
    expect(Object.keys(pkg.dependencies)).toContain('chart.js');
  });

  it('the image runs the current LTS line, which engines allows', () => {
    const images = [...readFileSync('Dockerfile', 'utf8').matchAll(/^FROM node:(\d+)/gm)].map(
      (match) => Number(match[1]),
    );
    expect(images.length).toBeGreaterThan(0);
    for (const major of images) expect(major).toBeGreaterThanOrEqual(24);
    const minimum = Number(/>=\s*(\d+)/.exec(pkg.engines.node)?.[1]);
    expect(minimum).toBeLessThanOrEqual(Math.min(...images));
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
