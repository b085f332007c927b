import {
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  stat,
  unlink,
  type FileHandle,
} from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The local append-only spool that keeps paymirror's promise while Postgres is down: an
 * authenticated delivery is appended and fsynced before its 200, and moved into the inbox, in
 * order, once Postgres answers again (also after a restart: the files stay until drained).
 *
 * Layout: `<dir>/open.jsonl` receives appends; a drain first renames it to
 * `<dir>/segment-<time>.jsonl` (new appends start a fresh open file), then stores each closed
 * segment's lines in order and deletes the segment. A crash mid-drain replays the segment
 * from its start: the inbox dedupe turns the already stored lines into duplicates.
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

export async function createSpool(dir: string, maxBytes: number): Promise<Spool> {
  // The spool holds customer data (names, documents, e-mails): only the owner may read it.
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let handle: FileHandle | null = null;
  let bytes = await spooledBytes(dir);
  // Counted once from the files left by an earlier run, then kept up to date in memory.
  let pendingCount = await countLines(dir);
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
        const line = `${JSON.stringify({ ...delivery, rawBody: delivery.rawBody.toString('base64') })}\n`;
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
          for (const delivery of parseSegment(await readFile(path, 'utf8'))) {
            await store(delivery);
            moved += 1;
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

/** A torn last line (a crash mid-append, never acknowledged) is skipped. */
function parseSegment(text: string): SpooledDelivery[] {
  const deliveries: SpooledDelivery[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const parsed = JSON.parse(line) as Omit<SpooledDelivery, 'rawBody'> & { rawBody: string };
      deliveries.push({ ...parsed, rawBody: Buffer.from(parsed.rawBody, 'base64') });
    } catch {
      continue;
    }
  }
  return deliveries;
}

async function countLines(dir: string): Promise<number> {
  let count = 0;
  for (const name of await readdir(dir)) {
    if (name === OPEN_FILE || name.startsWith('segment-')) {
      count += parseSegment(await readFile(join(dir, name), 'utf8')).length;
    }
  }
  return count;
}
