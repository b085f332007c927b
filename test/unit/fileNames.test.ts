import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

describe('file names', () => {
  it('src and test name their TypeScript files in camelCase, never kebab-case', () => {
    const kebab = ['src', 'test']
      .flatMap((dir) => filesUnder(join(ROOT, dir)))
      .filter((path) => path.endsWith('.ts') && /-/.test(path.split('/').at(-1) ?? ''))
      .map((path) => relative(ROOT, path));
    expect(kebab).toEqual([]);
  });
});
