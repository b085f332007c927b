import {
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  stat,
  unlink,
  writeFile,
  type FileHandle,
} from 'node:fs/promises';
import { join } from 'node:path';
import type { SpoolMac } from './spoolMac.js';

/**
 * The local append-only spool that keeps paymirror's promise while Postgres is down: an
 * authenticated delivery is appended and fsynced before its 200, and moved into the inbox, in
 * order, once Postgres answers again (also after a restart: the files stay until drained).
 *
 * Layout: `<dir>/open.jsonl` receives appends; a drain first renames it to
 * `<dir>/segment-<time>.jsonl` (new appends start a fresh open file), then stores each closed
 * segment's lines in order and deletes the segment. A crash mid-drain replays the segment
 * from its start: the inbox dedupe turns the already stored lines into duplicates.
 *
 * Each line is `<json>\t<hmac>` (JSON never holds a raw tab). A line whose HMAC does not
 * verify is not replayed: it is set aside in `<dir>/unverified-<time>.jsonl` for a human.
 */
export interface SpooledDelivery {
  readonly channel: 'postback' | 'webhook';
  readonly rawBody: Buffer;
  readonly headers: Record<string, string>;
  readonly sourceAddress: string | null;
  readonly receivedAt: string;
}

export class SpoolFullError extends Error {
  override readonly name = 'SpoolFullError';
}

/** The spool directory can be written by someone else: they could plant deliveries. */
export class SpoolPermissionError extends Error {
  override readonly name = 'SpoolPermissionError';
}

export interface SpoolOptions {
  readonly maxBytes: number;
  readonly mac: SpoolMac;
  /** Lines of a drained segment whose HMAC did not verify, and the file they were set aside in. */
  readonly onUnverified?: (lines: number, file: string) => void;
}

export interface Spool {
  /** Resolves once the delivery is on disk (fsynced). */
  append(delivery: SpooledDelivery): Promise<void>;
  /** Moves spooled deliveries, oldest first, through `store`; stops at the first failure. */
  drain(store: (delivery: SpooledDelivery) => Promise<void>): Promise<number>;
  /** Deliveries appended and not yet drained (as far as this process knows). */
  pending(): Promise<number>;
  close(): Promise<void>;
}

const OPEN_FILE = 'open.jsonl';

export async function createSpool(dir: string, options: SpoolOptions): Promise<Spool> {
  const { maxBytes, mac } = options;
  // The spool holds customer data (names, documents, e-mails): only the owner may read it.
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const mode = (await stat(dir)).mode & 0o777;
  if ((mode & 0o022) !== 0) {
    throw new SpoolPermissionError(
      `SPOOL_DIR ${dir} is writable by group or others (mode ${mode.toString(8)}): ` +
        `run chmod 700 ${dir}`,
    );
  }
  let handle: FileHandle | null = null;
  let bytes = await spooledBytes(dir);
  // Counted once from the files left by an earlier run, then kept up to date in memory.
  let pendingCount = await countLines(dir, mac);
  let chain: Promise<unknown> = Promise.resolve();
  // Appends and drains take turns: a rename never happens under a half-written line.
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = chain.then(task, task);
    chain = run.catch(() => undefined);
    return run;
  };

  return {
    append(delivery) {
      return serial(async () => {
        const json = JSON.stringify({ ...delivery, rawBody: delivery.rawBody.toString('base64') });
        const line = `${json}\t${mac.sign(json)}\n`;
        if (bytes + line.length > maxBytes) {
          throw new SpoolFullError(`spool at ${dir} is full (${maxBytes} bytes)`);
        }
        handle ??= await open(join(dir, OPEN_FILE), 'a', 0o600);
        await handle.appendFile(line);
        await handle.sync();
        bytes += line.length;
        pendingCount += 1;
      });
    },
    drain(store) {
      return serial(async () => {
        if (handle) {
          await handle.close();
          handle = null;
        }
        await closeOpenFile(dir);
        let moved = 0;
        for (const segment of await segments(dir)) {
          const path = join(dir, segment);
          const { deliveries, unverified } = parseSegment(await readFile(path, 'utf8'), mac);
          for (const delivery of deliveries) {
            await store(delivery);
            moved += 1;
          }
          if (unverified.length > 0) {
            const aside = join(dir, segment.replace(/^segment-/, 'unverified-'));
            await writeFile(aside, unverified.map((line) => `${line}\n`).join(''), {
              mode: 0o600,
              flag: 'a',
            });
            options.onUnverified?.(unverified.length, aside);
          }
          await unlink(path);
        }
        // Only reached when every segment went through: no delivery is left waiting.
        bytes = await spooledBytes(dir);
        pendingCount = 0;
        return moved;
      });
    },
    pending() {
      return Promise.resolve(pendingCount);
    },
    close() {
      return serial(async () => {
        await handle?.close();
        handle = null;
      });
    },
  };
}

async function closeOpenFile(dir: string): Promise<void> {
  const path = join(dir, OPEN_FILE);
  const size = await stat(path).then(
    (s) => (s.isFile() ? s.size : 0),
    () => 0,
  );
  if (size === 0) return;
  const stamp = `${Date.now()}`.padStart(15, '0');
  await rename(path, join(dir, `segment-${stamp}-${process.pid}.jsonl`));
}

async function segments(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.startsWith('segment-')).sort();
}

async function spooledBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(join(dir, name))).size;
  return total;
}

/**
 * A torn last line (a crash mid-append, never acknowledged) is skipped; a whole line whose
 * HMAC does not verify is returned apart.
 */
function parseSegment(
  text: string,
  mac: SpoolMac,
): { deliveries: SpooledDelivery[]; unverified: string[] } {
  const deliveries: SpooledDelivery[] = [];
  const unverified: string[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const tab = line.lastIndexOf('\t');
    const json = tab < 0 ? line : line.slice(0, tab);
    let parsed: Omit<SpooledDelivery, 'rawBody'> & { rawBody: string };
    try {
      parsed = JSON.parse(json) as typeof parsed;
    } catch {
      continue;
    }
    if (tab < 0 || !mac.verify(json, line.slice(tab + 1))) {
      unverified.push(line);
      continue;
    }
    deliveries.push({ ...parsed, rawBody: Buffer.from(parsed.rawBody, 'base64') });
  }
  return { deliveries, unverified };
}

async function countLines(dir: string, mac: SpoolMac): Promise<number> {
  let count = 0;
  for (const name of await readdir(dir)) {
    if (name === OPEN_FILE || name.startsWith('segment-')) {
      count += parseSegment(await readFile(join(dir, name), 'utf8'), mac).deliveries.length;
    }
  }
  return count;
}
