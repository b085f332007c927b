import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectPostgres } from './connect.js';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { createDatabase } from './client.js';

/** The committed drizzle-kit migrations, found from this file in src/ and in dist/ alike. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));

/** Any fixed number: it only has to be the same in every paymirror process. */
const MIGRATION_LOCK_KEY = 7_246_101;

class MigrationError extends Error {
  override readonly name = 'MigrationError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Creates the database named in `url` when the server does not have it yet. */
async function ensureDatabaseExists(url: string): Promise<boolean> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new MigrationError(`DATABASE_URL names no database: ${redactUrl(url)}`);
  // Most runs find it: ask the database itself first, so a pooler that only knows paymirror's
  // database (PgBouncer without a `*` entry) never has to reach `postgres`.
  if (await databaseAnswers(url)) return false;
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const sql = connectPostgres(admin.toString(), {
    max: 1,
    connect_timeout: 10,
    onnotice: () => {},
  });
  try {
    const rows = await sql`select 1 from pg_database where datname = ${name}`;
    if (rows.length > 0) return false;
    try {
      await sql`create database ${sql(name)}`;
    } catch (error) {
      // Another process created it between our check and our create: that is fine.
      if ((error as { code?: string }).code !== '42P04') throw error;
      return false;
    }
    return true;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function databaseAnswers(url: string): Promise<boolean> {
  const sql = connectPostgres(url, { max: 1, connect_timeout: 10, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === UNDEFINED_DATABASE) return false;
    // PgBouncer says it in a pooler error of its own, without the SQLSTATE.
    if (error instanceof Error && /database ".*" does not exist/.test(error.message)) return false;
    throw error;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const UNDEFINED_DATABASE = '3D000';

/**
 * Applies the pending migrations in one transaction that first takes a transaction-level
 * advisory lock, so several processes starting at once migrate one after the other, and a
 * connection pooler in transaction mode (PgBouncer) keeps lock and migration on one server
 * connection. The bookkeeping is drizzle's own (drizzle.__drizzle_migrations), so drizzle-kit
 * and this agree on what is applied. A failure is thrown, never logged and skipped.
 */
export async function runMigrations(
  url: string,
  options: { readonly upTo?: string } = {},
): Promise<void> {
  try {
    await ensureDatabaseExists(url);
  } catch (error) {
    throw new MigrationError(`cannot create the database: ${describe(error)}`, { cause: error });
  }
  const migrations = migrationsUpTo(options.upTo);
  const database = createDatabase(url, { max: 1, connectTimeoutSeconds: 10 });
  try {
    await database.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
      await tx`create schema if not exists drizzle`;
      await tx`create table if not exists drizzle.__drizzle_migrations (
                 id serial primary key, hash text not null, created_at bigint)`;
      const [last] = await tx<{ created_at: string }[]>`
        select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`;
      for (const migration of migrations) {
        if (last && Number(last.created_at) >= migration.folderMillis) continue;
        // The migration files' own text: statements written by drizzle-kit (and by hand for the
        // views), run as they are.
        for (const statement of migration.sql) await tx.unsafe(statement);
        await tx`insert into drizzle.__drizzle_migrations (hash, created_at)
                 values (${migration.hash}, ${migration.folderMillis})`;
      }
    });
  } catch (error) {
    throw new MigrationError(`migrations failed: ${describe(error)}`, { cause: error });
  } finally {
    await database.close();
  }
}

/**
 * The committed migrations in order; with `upTo` (a tag such as `0010_denied`), only those
 * through it: a test starts from an older schema and data, then migrates the rest.
 */
function migrationsUpTo(upTo: string | undefined) {
  const migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
  if (upTo === undefined) return migrations;
  const journal = JSON.parse(
    readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'),
  ) as { entries: { tag: string }[] };
  const count = journal.entries.findIndex((entry) => entry.tag === upTo) + 1;
  if (count === 0) throw new MigrationError(`no migration ${upTo}`);
  return migrations.slice(0, count);
}

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable url)';
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
