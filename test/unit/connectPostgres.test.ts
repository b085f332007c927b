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
});
