import postgres from 'postgres';

/**
 * A `postgres` client for a DATABASE_URL, which may name a Unix socket directory the libpq way
 * (`postgres://user@localhost/db?host=/var/run/postgresql`): postgres.js wants the socket's
 * path instead, and would send an unknown `host` parameter to the server. A local socket
 * skips the TCP stack for every statement.
 */
export function connectPostgres<
  T extends Record<string, postgres.PostgresType> = Record<string, never>,
>(url: string, options: postgres.Options<T> = {}) {
  const parsed = new URL(url);
  const socketDir = parsed.searchParams.get('host');
  if (socketDir === null || !socketDir.startsWith('/')) return postgres(url, options);
  parsed.searchParams.delete('host');
  const port = parsed.port || '5432';
  return postgres(parsed.toString(), {
    ...options,
    path: `${socketDir.replace(/\/+$/, '')}/.s.PGSQL.${port}`,
  });
}
