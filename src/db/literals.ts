import { sql, type SQL } from 'drizzle-orm';

/**
 * Values written into a statement's text instead of passed as parameters. A statement without
 * parameters goes by postgres.js's simple protocol, unprepared, and Postgres plans it at each
 * run, knowing how many keys it names, against the table as it is then. A prepared statement
 * keeps the plan of its sixth run: for a table nearly empty then, a sequential scan, kept however
 * much the table grows until the next ANALYZE (docs/architecture.md, "Plans that outlive a
 * small table").
 */

export class NotAnIdError extends Error {
  override readonly name = 'NotAnIdError';
  constructor(value: unknown) {
    super(`${String(value)} is not an integer id`);
  }
}

/** `'{1,2,3}'::bigint[]`. */
export function bigintArrayLiteral(ids: readonly number[]): SQL {
  for (const id of ids) if (!Number.isSafeInteger(id)) throw new NotAnIdError(id);
  return sql.raw(`'{${ids.join(',')}}'::bigint[]`);
}

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
