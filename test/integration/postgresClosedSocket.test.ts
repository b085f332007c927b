import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';

// patches/postgres+3.4.9.patch, the one patch paymirror carries
// (https://github.com/porsager/postgres/issues/1208, /issues/1154): when a transaction's
// backend dies mid-statement, postgres.js sends its own ROLLBACK, deferred to setImmediate,
// on the closed socket. Unpatched, that write throws a TypeError no caller can catch and the
// process dies (a worker on every Postgres restart or failover). Patched, the transaction
// rejects with CONNECTION_CLOSED and the pool serves the next query. In a child process, where
// the uncaught TypeError can end it without ending the test run. Remove the patch once a
// published postgres passes this test unpatched.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const SCRIPT = `
import postgres from 'postgres';
const url = process.env.DATABASE_URL;
const sql = postgres(url, { max: 2, onnotice: () => {} });
const killer = postgres(url, { max: 1, onnotice: () => {} });
let pid = null;
const transaction = sql.begin(async (tx) => {
  [{ pid }] = await tx\`select pg_backend_pid() as pid\`;
  await tx\`select pg_sleep(5)\`;
});
while (pid === null) await new Promise((resolve) => setTimeout(resolve, 10));
await killer\`select pg_terminate_backend(\${pid})\`;
const code = await transaction.then(() => 'committed', (error) => error.code);
const [{ n }] = await sql\`select 1 as n\`;
// Within the same turns as the crash it replaces: the deferred ROLLBACK has run by now.
await new Promise((resolve) => setImmediate(resolve));
process.stdout.write(JSON.stringify({ transaction: code, next: n }));
// A connection that died with a statement in flight keeps postgres.js's end() waiting.
await Promise.all([sql.end({ timeout: 1 }), killer.end({ timeout: 1 })]);
`;

function runScript(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--input-type=module', '--eval', SCRIPT], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: inject('databaseUrl') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('postgres.js, when the backend of a transaction dies', () => {
  it('rejects the transaction with CONNECTION_CLOSED and keeps the process alive', async () => {
    const { code, stdout, stderr } = await runScript();
    expect(stderr).not.toMatch(/TypeError/);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ transaction: 'CONNECTION_CLOSED', next: 1 });
  });
});
