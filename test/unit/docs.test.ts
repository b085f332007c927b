import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const documents = [
  'README.md',
  'SECURITY.md',
  'ops/README.md',
  'deploy/kubernetes/README.md',
  'bench/PERFORMANCE.md',
  ...readdirSync('docs')
    .filter((file) => file.endsWith('.md'))
    .map((file) => join('docs', file)),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  for (const match of readFileSync(file, 'utf8').matchAll(/^#{1,6} (.+)$/gm)) {
    anchors.add(
      String(match[1])
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    );
  }
  return anchors;
}

describe('the documentation', () => {
  it('opens with a README of at most 250 lines (the rest is in docs/)', () => {
    expect(readFileSync('README.md', 'utf8').split('\n').length).toBeLessThanOrEqual(250);
  });

  it.each(documents)('%s: every relative link and anchor leads somewhere', (file) => {
    const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = String(match[1]);
      if (/^[a-z]+:/.test(target)) continue;
      const [path = '', anchor] = target.split('#');
      const resolved = path === '' ? file : normalize(join(dirname(file), path));
      expect(existsSync(resolved), `${file} → ${target}`).toBe(true);
      if (anchor && resolved.endsWith('.md')) {
        expect(anchorsOf(resolved), `${file} → ${target}`).toContain(anchor);
      }
    }
  });

  it.each(documents)('%s: cites no document users do not have', (file) => {
    const text = readFileSync(file, 'utf8');
    expect(text).not.toMatch(/\bDESIGN(\.md| \d)/);
    expect(text).not.toMatch(/\.\.\/shared/);
  });

  it.each(documents)('%s: every test it cites as proof exists', (file) => {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/`(test\/[^`]+\.test\.ts)`/g)) {
      expect(existsSync(String(match[1])), `${file} cites ${match[1]}`).toBe(true);
    }
  });
});
