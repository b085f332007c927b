import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * The lines patches/postgres+3.4.9.patch adds to postgres.js (docs/reliability.md): a deferred
 * write on a closed socket fails its queries instead of throwing where nothing can catch it; a
 * transaction starts on an unpipelined connection (behind PgBouncer). npm applies the patch at
 * install (postinstall); `npm ci --ignore-scripts` skips it silently.
 */
export const POSTGRES_GUARD_MARKERS = [
  'paymirror: nextWrite guard',
  'paymirror: begin unpipelined',
] as const;

export const UNGUARDED_POSTGRES_DRIVER =
  'postgres.js is installed without patches/postgres+3.4.9.patch: a Postgres connection lost ' +
  'during a transaction crashes the process, and behind PgBouncer (?prepare=false) every ' +
  'transaction fails. Install with npm ci, without --ignore-scripts';

/** Both copies of the file the patch changes (ES module and CommonJS), read as installed. */
function installedSources(): string[] {
  const entry = createRequire(import.meta.url).resolve('postgres'); // <package>/cjs/src/index.js
  return ['../../src/connection.js', './connection.js'].map((path) =>
    readFileSync(new URL(path, pathToFileURL(entry)), 'utf8'),
  );
}

/** Whether the postgres.js this process loads carries the patch; false when it cannot tell. */
export function postgresDriverGuarded(sources: () => string[] = installedSources): boolean {
  try {
    return sources().every((source) =>
      POSTGRES_GUARD_MARKERS.every((marker) => source.includes(marker)),
    );
  } catch {
    return false;
  }
}
