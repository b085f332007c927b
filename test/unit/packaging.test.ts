import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  files: string[];
  engines: { node: string };
};

describe('packaging', () => {
  it('the published package carries the patches its postinstall applies', () => {
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as { files: { path: string }[] }[];
    const paths = (packed?.files ?? []).map((file) => file.path);
    const patches = readFileSync('package.json', 'utf8').includes('patch-package')
      ? execFileSync('ls', ['patches'], { encoding: 'utf8' }).split('\n').filter(Boolean)
      : [];
    expect(patches.length).toBeGreaterThan(0);
    for (const patch of patches) expect(paths).toContain(`patches/${patch}`);
    expect(paths).toContain('bin/paymirror');
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
});
