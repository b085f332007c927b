import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * `sql.unsafe` sends text as SQL, with no parameters: the one way request data could become SQL.
 * SECURITY.md lists its call sites; this test holds the code to that list.
 */
const ALLOWED: Readonly<Record<string, number>> = {
  // The committed migration files' own statements, as drizzle-kit wrote them.
  'src/db/migrate.ts': 1,
};

const ROOT = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `x.unsafe(`, `x?.unsafe(`, `x['unsafe'](` and a destructured `unsafe` alike. */
const UNSAFE = /\bunsafe\b\s*['"]?\]?\s*\(|\{[^}]*\bunsafe\b[^}]*\}\s*=/g;

describe('sql.unsafe', () => {
  it('is called only where SECURITY.md says, as many times as it says', () => {
    const calls = Object.fromEntries(
      sourceFiles(join(ROOT, 'src')).flatMap((path) => {
        const code = readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
        const found = [...code.matchAll(UNSAFE)].length;
        return found > 0 ? [[relative(ROOT, path), found]] : [];
      }),
    );
    expect(calls).toEqual(ALLOWED);
  });

  it('SECURITY.md names the same call sites', () => {
    const security = readFileSync(join(ROOT, 'SECURITY.md'), 'utf8');
    const named = [
      ...security.matchAll(/`sql\.unsafe` call site[^:]*: ((?:`[^`]+`(?:, )?)+)/g),
    ].map((match) => match[1]);
    expect(named).toHaveLength(1);
    for (const file of Object.keys(ALLOWED)) expect(named[0]).toContain(`\`${file}\``);
  });

  it('finds a call in any of its spellings', () => {
    for (const code of [
      'sql.unsafe(text)',
      'tx?.unsafe (text)',
      "sql['unsafe'](t)",
      'const { unsafe } = sql',
    ]) {
      expect([...code.matchAll(UNSAFE)], code).toHaveLength(1);
    }
  });
});
