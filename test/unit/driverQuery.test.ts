import fc from 'fast-check';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { bigintArrayParam } from '../../src/db/anyOf.js';
import { compileQuery, UnsupportedSqlChunkError } from '../../src/db/driverQuery.js';
import { bigintArrayLiteral, jsonLiteral, textArrayLiteral } from '../../src/db/literals.js';
import { RowReader } from '../../src/db/rowReader.js';
import { inboxEvents, sales } from '../../src/db/schema.js';
import { namedByInbox } from '../../src/mirror/mirrorRows.js';

const dialect = new PgDialect();
const drizzles = (query: SQL) => {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return { text, params };
};

const ids = fc.array(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), { maxLength: 8 });
const text = fc.string({ unit: 'binary', maxLength: 40 });

/** The worker's statements' parts: what compileQuery must compile exactly as drizzle does. */
const statement = fc
  .record({ ids, more: ids, text, texts: fc.array(text, { maxLength: 4 }), flag: fc.boolean() })
  .map(({ ids, more, text, texts, flag }) => {
    const reader = RowReader.of(sales);
    return sql`select ${reader.columns} from ${sql.identifier('sa"les')}
      where id = any(${namedByInbox('sale', bigintArrayParam(ids))})
        and id = any(${bigintArrayLiteral(more)})
        and ${sql.join([sql`a = ${text}`, sql`b = ${sql.param(more)}::bigint[]`, sql`c = ${7}`], sql` or `)}
        and d = ${jsonLiteral(JSON.stringify({ text }))} and e = any(${textArrayLiteral(texts)})
        ${flag ? sql`for update` : sql``} ${null} ${sql.param(null)} ${undefined} ${10n} ${true}`;
  });

describe('compileQuery', () => {
  it('writes the text and parameters drizzle writes, for every part the worker uses', () => {
    fc.assert(
      fc.property(statement, (query) => {
        expect(compileQuery(query)).toEqual(drizzles(query));
      }),
    );
  });

  it('refuses every other part (columns, tables, placeholders, inlined values, objects)', () => {
    const refused = [
      sql`select ${inboxEvents.id} from inbox_events`,
      sql`select * from ${sales}`,
      sql`select ${sql.placeholder('id')}`,
      sql`select ${sql.param(sql.placeholder('id'))}`,
      sql`select ${'inlined'}`.inlineParams(),
      sql`select ${{ not: 'a value' }}`,
    ];
    for (const query of refused) {
      expect(() => compileQuery(query)).toThrow(UnsupportedSqlChunkError);
    }
  });
});
