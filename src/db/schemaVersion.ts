import { readMigrationFiles } from 'drizzle-orm/migrator';
import type { Sql } from './client.js';
import { MIGRATIONS_FOLDER } from './migrate.js';

/**
 * Only `migrate` and `start` change the schema. Every other command checks that the database
 * is at this checkout's migration first, and says what to do when it is not: a read-only
 * role, or a replica, cannot migrate, and a report must never migrate production.
 */
class SchemaVersionError extends Error {
  override readonly name = 'SchemaVersionError';
  constructor(
    readonly state: 'missing' | 'behind' | 'ahead',
    message: string,
  ) {
    super(message);
  }
}

const UNDEFINED_TABLE = '42P01';
const UNDEFINED_DATABASE = '3D000';

export async function checkSchemaVersion(sql: Sql): Promise<void> {
  const known = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).map(
    (migration) => migration.folderMillis,
  );
  let applied: number[];
  try {
    const rows = await sql<{ created_at: string }[]>`
      select created_at from drizzle.__drizzle_migrations order by created_at`;
    applied = rows.map((row) => Number(row.created_at));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === UNDEFINED_TABLE || code === UNDEFINED_DATABASE) {
      throw new SchemaVersionError(
        'missing',
        'the database has no paymirror schema yet: run `paymirror migrate` first',
      );
    }
    throw error;
  }
  const last = applied.at(-1) ?? 0;
  const latest = known.at(-1) ?? 0;
  if (last > latest) {
    throw new SchemaVersionError(
      'ahead',
      'the database was migrated by a newer paymirror than this one: upgrade this paymirror ' +
        '(never run an older version against it)',
    );
  }
  const behind = known.filter((millis) => millis > last).length;
  if (behind > 0) {
    throw new SchemaVersionError(
      'behind',
      `the database is ${behind} migration${behind === 1 ? '' : 's'} behind this paymirror: ` +
        'run `paymirror migrate` (with a role that may change the schema), then try again',
    );
  }
}

/** How many migrations the database has applied (0 before the first). */
export async function appliedMigrationCount(sql: Sql): Promise<number> {
  try {
    const [row] = await sql<{ applied: number }[]>`
      select count(*)::int as applied from drizzle.__drizzle_migrations`;
    return row?.applied ?? 0;
  } catch {
    return 0;
  }
}
