import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { createDatabase } from './client.js';

/** The committed drizzle-kit migrations, found from this file in src/ and in dist/ alike. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));

/** Any fixed number: it only has to be the same in every paymirror process. */
const MIGRATION_LOCK_KEY = 7_246_101;

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Creates the database named in `url` when the server does not have it yet. */
export async function ensureDatabaseExists(url: string): Promise<boolean> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new MigrationError(`DATABASE_URL names no database: ${redactUrl(url)}`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const sql = postgres(admin.toString(), { max: 1, connect_timeout: 10, onnotice: () => {} });
  try {
    const rows = await sql`select 1 from pg_database where datname = ${name}`;
    if (rows.length > 0) return false;
    try {
      await sql.unsafe(`create database "${name.replace(/"/g, '""')}"`);
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

/**
 * Applies the pending migrations under an advisory lock, so several processes starting at
 * once migrate one after the other. A failure is thrown, never logged and skipped.
 */
export async function runMigrations(url: string): Promise<void> {
  try {
    await ensureDatabaseExists(url);
  } catch (error) {
    throw new MigrationError(`cannot create the database: ${describe(error)}`, { cause: error });
  }
  const database = createDatabase(url, { max: 1, connectTimeoutSeconds: 10 });
  try {
    await database.sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    try {
      await migrate(database.db, { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await database.sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
    }
  } catch (error) {
    throw new MigrationError(`migrations failed: ${describe(error)}`, { cause: error });
  } finally {
    await database.close();
  }
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
