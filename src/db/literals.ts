import { sql, type SQL } from 'drizzle-orm';

/**
 * Values written into a statement's text instead of passed as parameters. With its ids as a
 * bigint[] literal too (anyOf.ts), a statement that joins rows from a JSON document has no
 * parameters: postgres.js sends it unprepared, and Postgres plans it at each run, knowing how
 * many keys it names, against the table as it is then (docs/architecture.md, "Plans that
 * outlive a small table").
 */

/** `$j$…$j$::json`. */
export function jsonLiteral(json: string): SQL {
  return sql.raw(`${dollarQuoted(json)}::json`);
}

/** `array[$j$…$j$, …]::text[]`. */
export function textArrayLiteral(values: readonly string[]): SQL {
  return sql.raw(`array[${values.map(dollarQuoted).join(', ')}]::text[]`);
}

/**
 * Dollar-quoted with a tag the text does not contain: nothing to escape, whatever
 * standard_conforming_strings says.
 */
function dollarQuoted(text: string): string {
  let tag = 'j';
  for (let n = 0; text.includes(`$${tag}$`); n += 1) tag = `j${n}`;
  return `$${tag}$${text}$${tag}$`;
}
