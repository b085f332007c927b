import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * The line patches/postgres+3.4.9.patch adds to postgres.js: a deferred write on a closed
 * socket fails its queries instead of throwing where nothing can catch it (docs/reliability.md).
 * npm applies the patch at install (postinstall); `npm ci --ignore-scripts` skips it silently.
 */
export const POSTGRES_GUARD_MARKER = 'paymirror: nextWrite guard';

export const UNGUARDED_POSTGRES_DRIVER =
  'postgres.js is installed without patches/postgres+3.4.9.patch: a Postgres connection lost ' +
  'during a transaction crashes the process. Install with npm ci, without --ignore-scripts';

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
    return sources().every((source) => source.includes(POSTGRES_GUARD_MARKER));
  } catch {
    return false;
  }
}
