import postgres from 'postgres';

/**
 * A `postgres` client for a DATABASE_URL, which may name a Unix socket directory the libpq way
 * (`postgres://user@localhost/db?host=/var/run/postgresql`): postgres.js wants the socket's
 * path instead, and would send an unknown `host` parameter to the server. A local socket
 * skips the TCP stack for every statement. With `?prepare=false` (PgBouncer), nothing is
 * pipelined either (unpipelineWhenUnprepared).
 */
export function connectPostgres<
  T extends Record<string, postgres.PostgresType> = Record<string, never>,
>(url: string, options: postgres.Options<T> = {}) {
  const parsed = new URL(url);
  const unpipelined = unpipelineWhenUnprepared(parsed, options.prepare);
  const socketDir = parsed.searchParams.get('host');
  if (socketDir === null || !socketDir.startsWith('/')) {
    return postgres(unpipelined ? parsed.toString() : url, options);
  }
  parsed.searchParams.delete('host');
  const port = parsed.port || '5432';
  return postgres(parsed.toString(), {
    ...options,
    path: `${socketDir.replace(/\/+$/, '')}/.s.PGSQL.${port}`,
  });
}

/**
 * `?prepare=false` says a pooler in transaction mode (PgBouncer) is in front: then no statement
 * is sent on a connection while another one outside a transaction still runs there
 * (`?max_pipeline=0`, unless the URL sets it). PgBouncer hands the server back when the first
 * one ends, and the answer to the second reaches no one: that query, and every later one on the
 * connection, waits for good (https://github.com/pgbouncer/pgbouncer/issues/759). Unprepared,
 * postgres.js pipelines little inside transactions anyway: a statement with parameters is
 * described before it is sent. Returns whether it set the parameter.
 */
function unpipelineWhenUnprepared(url: URL, prepare: boolean | undefined): boolean {
  const setting = prepare ?? url.searchParams.get('prepare');
  const unprepared = setting === false || setting === 'false' || setting === 'disable';
  if (!unprepared || url.searchParams.has('max_pipeline')) return false;
  url.searchParams.set('max_pipeline', '0');
  return true;
}
