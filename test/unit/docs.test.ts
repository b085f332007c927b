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

  it.each(documents)('%s: every test it cites by name is a test of that file', (file) => {
    // `test/….test.ts` › "a title", "another title" (a trailing … cites a title's beginning).
    const text = readFileSync(file, 'utf8').replace(/\s*\n\s*/g, ' ');
    const citation = /`(test\/[^`]+\.test\.ts)` › ((?:"[^"]+"(?:, (?=")|,? (?=\(and ))?)+)/g;
    for (const match of text.matchAll(citation)) {
      const path = String(match[1]);
      if (!existsSync(path)) continue; // the test above says so
      const titles = testTitlesOf(path);
      for (const quoted of String(match[2]).matchAll(/"([^"]+)"/g)) {
        const cited = String(quoted[1]).replace(/\\([_*`])/g, '$1');
        expect(
          titles.some((title) => title(cited)),
          `${file} cites ${path} › "${cited}", which has no such test`,
        ).toBe(true);
      }
    }
  });
});

/**
 * The titles of a test file's `it`/`test`/`describe` calls, each as a matcher of a cited title:
 * printf placeholders of `it.each` (%s, %i, …) match any text, or may be left out when they end
 * the title; a cited `…` matches any ending.
 */
function testTitlesOf(path: string): ((cited: string) => boolean)[] {
  const source = readFileSync(path, 'utf8');
  // `it('…'`, `describe.skip('…'`, and the title of `it.each(table)('…'`.
  const literal = /(?:\b(?:it|test|describe)(?:\.\w+)*|\))\(\s*(['"`])((?:\\.|(?!\1).)*)\1/gs;
  return [...source.matchAll(literal)].map((match) => {
    const title = String(match[2]).replace(/\\(.)/g, '$1');
    const pattern = title
      .split(/%[sdijfo#%]/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.+');
    const withoutCases = title.replace(/[\s:,(-]*%[sdijfo#].*$/s, '');
    return (cited) => {
      if (withoutCases !== title && cited === withoutCases) return true;
      const wanted = cited.endsWith('…') ? cited.slice(0, -1) : null;
      return wanted === null
        ? new RegExp(`^${pattern}$`, 's').test(cited)
        : new RegExp(`^${pattern}`, 's').test(wanted) || title.startsWith(wanted);
    };
  });
}
