import { connect, type Socket } from 'node:net';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapSpaceStatistics } from 'node:v8';
import { connectPostgres } from '../../src/db/connect.js';
import { POSTGRES_URL } from '../lib/services.js';
import { median } from '../lib/stats.js';

/**
 * How much a client's queries promote to V8's old generation: three `select 1` at a time for
 * 10 s, each group after a 2 ms timer or after setImmediate, through postgres.js or through a
 * bare socket speaking the simple query protocol. Prints the old space's growth at each young
 * collection (scavenge): how much of a worker's garbage a driver's per-query objects make.
 *
 *   node --import tsx bench/probes/promotion.ts postgres-timer | postgres-immediate | socket-timer
 */
type Mode = 'postgres-timer' | 'postgres-immediate' | 'socket-timer';
const MODES: readonly Mode[] = ['postgres-timer', 'postgres-immediate', 'socket-timer'];

class UnknownModeError extends Error {
  override readonly name = 'UnknownModeError';
  constructor(given: string | undefined) {
    super(`give one of ${MODES.join(', ')} (got ${given ?? 'nothing'})`);
  }
}

const mode = process.argv[2] as Mode;
if (!MODES.includes(mode)) throw new UnknownModeError(process.argv[2]);

const promoted = watchPromotion();
const query = mode === 'socket-timer' ? await socketClient() : await postgresClient();
const end = Date.now() + 10_000;
while (Date.now() < end) {
  await Promise.all([query(), query(), query()]);
  if (mode === 'postgres-immediate') await new Promise((resolve) => setImmediate(resolve));
  else await sleep(2);
}
const kb = promoted().map((bytes) => Math.round(bytes / 1024));
console.log(
  `${mode}: ${kb.length} scavenges, old space grew by a median of ${median(kb)} KB at each (${kb.join(' ')})`,
);
process.exit(0);

/** The old space's growth over each young collection that no full collection followed. */
function watchPromotion(): () => number[] {
  const deltas: number[] = [];
  let last = oldSpaceUsed();
  const observer = new PerformanceObserver((list) => {
    const kinds = list
      .getEntries()
      .map((entry) => (entry as unknown as { detail: { kind: number } }).detail.kind);
    const now = oldSpaceUsed();
    if (kinds.every((kind) => kind === constants.NODE_PERFORMANCE_GC_MINOR)) {
      deltas.push((now - last) / kinds.length);
    }
    last = now;
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => {
    observer.disconnect();
    return deltas;
  };
}

function oldSpaceUsed(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')
    ?.space_used_size as number;
}

async function postgresClient(): Promise<() => Promise<unknown>> {
  const sql = connectPostgres(POSTGRES_URL, { max: 1, onnotice: () => {} });
  await sql.unsafe('select 1');
  return () => sql.unsafe('select 1');
}

/** The simple query protocol on a socket, trust authentication only: enough for `select 1`. */
async function socketClient(): Promise<() => Promise<unknown>> {
  const url = new URL(POSTGRES_URL);
  const socket: Socket = connect(Number(url.port || 5432), url.hostname);
  const waiting: (() => void)[] = [];
  let ready: () => void = () => {};
  let pending: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 5 && pending.length >= pending.readUInt32BE(1) + 1) {
      const type = String.fromCharCode(pending[0] ?? 0);
      pending = pending.subarray(pending.readUInt32BE(1) + 1);
      if (type === 'Z') (waiting.shift() ?? ready)();
    }
  });
  const user = decodeURIComponent(url.username || 'postgres');
  const database = url.pathname.slice(1) || user;
  const params = Buffer.from(`user\0${user}\0database\0${database}\0\0`);
  const startup = Buffer.alloc(8 + params.length);
  startup.writeUInt32BE(8 + params.length, 0);
  startup.writeUInt32BE(196_608, 4);
  params.copy(startup, 8);
  await new Promise<void>((resolve) => {
    ready = resolve;
    socket.write(startup);
  });
  const text = Buffer.from('select 1\0');
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      const message = Buffer.alloc(5 + text.length);
      message.write('Q', 0);
      message.writeUInt32BE(4 + text.length, 1);
      text.copy(message, 5);
      socket.write(message);
    });
}
