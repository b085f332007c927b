import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import * as schema from '../../src/db/schema.js';

/**
 * Each table's statements live with its owner (docs/architecture.md, "Where statements live"):
 * a folder of src/ other than the owner's reads or writes the table by calling the owner's
 * functions, never by naming it in SQL. src/db is the data layer itself (the schema, and
 * helpers that write any table from its drizzle description).
 */
const ROOT = join(import.meta.dirname, '..', '..');

const OWNERS: Readonly<Record<string, string>> = {
  inbox_events: 'src/inbox/',
  inbox_dedupe_keys: 'src/inbox/',
  rejected_deliveries: 'src/inbox/',
  sales: 'src/mirror/',
  sale_items: 'src/mirror/',
  withdrawals: 'src/mirror/',
  status_history: 'src/mirror/',
  reconciliation_discrepancies: 'src/mirror/',
  reconciliation_runs: 'src/reconciler/',
  scheduler_leases: 'src/reconciler/',
  backfill_progress: 'src/reconciler/',
  cashout_attempts: 'src/operations/',
  ledger_entries: 'src/books/',
  ledger_closes: 'src/books/',
  ledger_closed_days: 'src/books/',
  finance_journal_daily: 'src/books/',
  finance_daily_totals: 'src/reports/',
  finance_disputes: 'src/reports/',
  finance_open_disputes: 'src/reports/',
  finance_withdrawals_daily: 'src/reports/',
  finance_discrepancies_by_run: 'src/reports/',
  finance_denied_records: 'src/reports/',
  finance_flagged_records: 'src/reports/',
};

/** Table names by the name schema.ts exports them under. */
const TABLES_BY_EXPORT = new Map(
  Object.entries(schema as Record<string, unknown>).flatMap(([name, value]) =>
    is(value, PgTable) ? [[name, getTableName(value)] as const] : [],
  ),
);

/** Every view the migrations create. */
const VIEWS = [
  ...new Set(
    readdirSync(join(ROOT, 'migrations'))
      .filter((file) => file.endsWith('.sql'))
      .flatMap((file) =>
        [
          ...readFileSync(join(ROOT, 'migrations', file), 'utf8').matchAll(
            /create\s+(?:or\s+replace\s+)?view\s+"?(\w+)"?/gi,
          ),
        ].map((match) => match[1] as string),
      ),
  ),
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The code without its comments (SQL comments inside statements stay: they are code). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/**
 * The text of every statement in the code: tagged templates (`sql\`…\``, `tx<Row>\`…\``, nested
 * ones included) and what is given to `.unsafe(…)`. Untagged templates and plain strings (log
 * lines, error messages) are prose, not SQL.
 */
function statementTexts(code: string): string[] {
  const texts: string[] = [];
  let at = 0;
  const startsStatement = (before: string) =>
    /unsafe\(\s*$/.test(before) ||
    (/[\w$)\]>]\s*$/.test(before) && !/\b(?:return|await|yield|case|typeof)\s*$/.test(before));
  const quoted = (quote: string): string => {
    const start = at;
    for (at += 1; at < code.length && code[at] !== quote; at += code[at] === '\\' ? 2 : 1);
    at += 1;
    return code.slice(start + 1, at - 1);
  };
  const template = (): string => {
    let text = '';
    for (at += 1; at < code.length && code[at] !== '`';) {
      if (code[at] === '\\') {
        text += code.slice(at, at + 2);
        at += 2;
      } else if (code.startsWith('${', at)) {
        at += 2;
        text += ' ';
        scan('}');
      } else text += code[at++];
    }
    at += 1;
    return text;
  };
  const scan = (until: string | null): void => {
    let depth = 0;
    while (at < code.length) {
      const char = code[at] as string;
      if (char === '`' || char === "'" || char === '"') {
        const statement = startsStatement(code.slice(Math.max(0, at - 40), at));
        const text = char === '`' ? template() : quoted(char);
        if (statement) texts.push(text);
      } else if (char === '{') {
        depth += 1;
        at += 1;
      } else if (char === '}' && until === '}' && depth === 0) {
        at += 1;
        return;
      } else {
        if (char === '}') depth -= 1;
        at += 1;
      }
    }
  };
  scan(null);
  return texts;
}

/** The tables a file's statements name, or that it imports from the schema to write (jsonRows). */
function tablesNamedIn(text: string, tables: readonly string[]): string[] {
  const code = withoutComments(text);
  const statements = statementTexts(code).join('\n');
  const named = new Set<string>();
  for (const table of tables) {
    const inSql = new RegExp(
      `\\b(?:from|join|into|update|table|using|truncate)\\s+(?:only\\s+)?"?${table}"?(?![\\w.])`,
      'i',
    );
    const asIdentifier = new RegExp(`\\b(?:sql|tx)\\s*\\(\\s*['"]${table}['"]`);
    if (inSql.test(statements) || asIdentifier.test(code)) named.add(table);
  }
  for (const match of code.matchAll(
    /import\s+(type\s+)?\{([^}]*)\}\s+from\s+'[./]*(?:src\/)?db\/schema(?:\.js)?'/g,
  )) {
    if (match[1]) continue;
    for (const specifier of (match[2] ?? '').split(',')) {
      const name = specifier.trim();
      if (name.startsWith('type ')) continue;
      const table = TABLES_BY_EXPORT.get(name.split(/\s+as\s+/)[0] ?? '');
      if (table && tables.includes(table)) named.add(table);
    }
  }
  return [...named];
}

describe('the tables named in SQL', () => {
  it('each have one owner: every table of the schema, every view of the migrations', () => {
    const known = [...TABLES_BY_EXPORT.values(), ...VIEWS].sort();
    expect(known.length).toBeGreaterThan(10);
    expect(Object.keys(OWNERS).sort()).toEqual(known);
  });

  const named = sourceFiles(join(ROOT, 'src'))
    .map((path) => relative(ROOT, path))
    .filter((file) => !file.startsWith('src/db/'))
    .flatMap((file) =>
      tablesNamedIn(readFileSync(join(ROOT, file), 'utf8'), Object.keys(OWNERS)).map((table) => ({
        file,
        table,
      })),
    );

  it('are named in SQL only in their owner’s folder', () => {
    const strays = named
      .filter(({ file, table }) => !file.startsWith(OWNERS[table] as string))
      .map(({ file, table }) => `${file} names ${table} (owned by ${OWNERS[table]})`);
    expect(strays).toEqual([]);
  });

  it('are each found in their owner’s statements (the search sees them)', () => {
    const found = new Set(named.map(({ table }) => table));
    expect(Object.keys(OWNERS).filter((table) => !found.has(table))).toEqual([]);
  });

  it('are found in statements, fragments, identifiers and table imports, not in comments', () => {
    const tables = ['sales', 'status_history', 'inbox_events'];
    expect(tablesNamedIn('sql`select id from sales where id = ${id}`', tables)).toEqual(['sales']);
    expect(tablesNamedIn('tx`\n  update  status_history set x = 1`', tables)).toEqual([
      'status_history',
    ]);
    expect(tablesNamedIn("sql`insert into ${sql('inbox_events')} ${rows}`", tables)).toEqual([
      'inbox_events',
    ]);
    expect(tablesNamedIn("import { sales, withdrawals } from '../db/schema.js';", tables)).toEqual([
      'sales',
    ]);
    expect(
      tablesNamedIn(
        "import type { sales } from '../db/schema.js';\n" +
          '// a comment about rows from sales\n' +
          '/** deleted from inbox_events by the prune */\n' +
          "const text = 'sale'; const salesCount = 1; program.command('sales');\n" +
          'throw new Error(`job differs from status_history row ${id}`);',
        tables,
      ),
    ).toEqual([]);
  });
});
