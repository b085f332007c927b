import type postgres from 'postgres';

type Sql = postgres.Sql;
type Callback = (sql: Sql) => unknown;

/**
 * The postgres.js client drizzle is given. drizzle runs every query it builds with
 * `prepare: false` (it prepares only queries given a name), and postgres.js then sends a
 * statement with parameters unnamed and described first: two round trips and two socket
 * writes where a prepared statement takes one, for every statement of every worker batch.
 * This client asks postgres.js to prepare them all (it keeps each text's statement per
 * connection); `?prepare=false` in DATABASE_URL, for PgBouncer before 1.21 in transaction
 * mode, still turns preparing off everywhere.
 */
export function preparingClient(sql: Sql): Sql {
  return new Proxy(sql, {
    get(target, property, receiver) {
      switch (property) {
        case 'unsafe':
          return (query: string, params?: unknown[], options?: object) =>
            target.unsafe(query, params as never, { ...options, prepare: true });
        case 'begin':
          return (...args: unknown[]) => inScope(target.begin.bind(target), args);
        case 'savepoint':
          return (...args: unknown[]) =>
            inScope(
              (target as unknown as { savepoint: Sql['begin'] }).savepoint.bind(target),
              args,
            );
        default:
          return Reflect.get(target, property, receiver) as unknown;
      }
    },
  });
}

/** Calls begin or savepoint with its callback given a preparing client too. */
function inScope(open: (...args: never[]) => unknown, args: unknown[]): unknown {
  const callback = args.at(-1) as Callback;
  const wrapped: Callback = (scoped) => callback(preparingClient(scoped));
  return open(...([...args.slice(0, -1), wrapped] as never[]));
}
