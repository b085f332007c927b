import { describe, expect, it } from 'vitest';
import { connectPostgres } from '../../src/db/connect.js';

describe('connectPostgres', () => {
  it('turns a libpq-style ?host=/socket/dir into the socket path postgres.js wants', async () => {
    const sql = connectPostgres(
      'postgres://postgres@localhost:5433/paymirror?host=/var/run/postgresql',
    );
    try {
      expect(sql.options.path).toBe('/var/run/postgresql/.s.PGSQL.5433');
      expect(Object.keys(sql.options.connection ?? {})).not.toContain('host');
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('leaves a TCP URL alone', async () => {
    const sql = connectPostgres('postgres://postgres@127.0.0.1:5432/paymirror?prepare=false');
    try {
      expect(sql.options.path).toBeFalsy();
      expect(sql.options.prepare).toBe(false);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('pipelines nothing when told not to prepare (PgBouncer), unless the URL says otherwise', async () => {
    const base = 'postgres://postgres@127.0.0.1:5432/paymirror';
    const clients = [
      connectPostgres(base),
      connectPostgres(`${base}?prepare=false`),
      connectPostgres(base, { prepare: false }),
      connectPostgres(`${base}?prepare=false&max_pipeline=4`),
      connectPostgres(`${base}?prepare=false&host=/var/run/postgresql`),
    ];
    try {
      expect(clients.map((sql) => (sql.options as { max_pipeline?: number }).max_pipeline)).toEqual(
        [100, 0, 0, 4, 0],
      );
      expect(clients.map((sql) => Object.keys(sql.options.connection ?? {}))).not.toContainEqual(
        expect.arrayContaining(['max_pipeline']),
      );
    } finally {
      await Promise.all(clients.map((sql) => sql.end({ timeout: 1 })));
    }
  });
});
