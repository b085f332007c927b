import { createMicroBatcher, type Pending } from '../lib/microBatcher.js';
import type { BatchItemResult, BatchOptions } from './processInboxBatch.js';
import type { LaneResult } from './workerOutcome.js';

export interface InboxBatcherOptions extends BatchOptions {
  /** Most rows in one transaction. */
  readonly maxBatch: number;
  /** Batches running at once: while they run, new rows gather for the next one. */
  readonly maxInFlight: number;
  /** Rows that must be waiting before a batch starts beside one in flight (default 1). */
  readonly overlapFrom?: number;
  /** Applies rows together (processInboxBatch). */
  readonly run: (
    ids: readonly number[],
    options: BatchOptions,
  ) => Promise<Map<number, BatchItemResult>>;
  /**
   * Rows that need a gateway read (first, or again: the mirror moved while it was in flight).
   * Called outside the batch slots; it settles every row it is given.
   */
  readonly forward: (rows: readonly Pending<number, LaneResult>[]) => void;
  /**
   * Webhooks about records the mirror does not know (a run with `triage`): handed to the lane of
   * unknown ids. Called outside the batch slots; it settles every row it is given.
   */
  readonly forwardUnknown?: (rows: readonly Pending<number, LaneResult>[]) => void;
  /** What became of rows no job of this batch asked for (other webhooks its reads answered). */
  readonly onExtra?: (id: number, result: LaneResult) => void;
  readonly onBatchFailure: (error: unknown, size: number) => void;
}

export interface InboxBatcher {
  /** Resolves with this row's result once its transaction committed. */
  process(id: number): Promise<LaneResult>;
  close(): Promise<void>;
}

class InboxBatcherClosedError extends Error {
  override readonly name = 'InboxBatcherClosedError';
  constructor() {
    super('the worker is closing');
  }
}

class MissingBatchResultError extends Error {
  override readonly name = 'MissingBatchResultError';
  constructor(id: number) {
    super(`the batch returned no result for inbox row ${id}`);
  }
}

/**
 * Gathers the rows of the jobs a worker runs at once into batches, with no timer: a row that
 * finds a batch slot free leaves at the end of the event loop's turn, and the rows that come
 * while the slots are taken make up the next batch. A quiet worker answers as fast as one row
 * at a time; a busy one writes many rows per transaction. A batch that fails is run again row
 * by row, so one bad row fails only its own job.
 */
export function createInboxBatcher(options: InboxBatcherOptions): InboxBatcher {
  const batcher = createMicroBatcher<number, LaneResult>(
    (batch) =>
      runRows(
        batch,
        {
          read: options.read,
          ...(options.triage !== undefined ? { triage: options.triage } : {}),
          ...(options.joinReads !== undefined ? { joinReads: options.joinReads } : {}),
        },
        options,
      ),
    {
      maxBatch: options.maxBatch,
      maxWaitMs: 0,
      maxInFlight: options.maxInFlight,
      overlapFrom: options.overlapFrom,
    },
    () => new InboxBatcherClosedError(),
  );
  return { process: (id) => batcher.add(id), close: () => batcher.close() };
}

/**
 * Runs rows together and settles each; `forward` gets the ones that need a read first,
 * `forwardUnknown` the webhooks about unknown records.
 */
export async function runRows(
  rows: readonly Pending<number, LaneResult>[],
  batch: BatchOptions,
  options: Pick<
    InboxBatcherOptions,
    'run' | 'forward' | 'forwardUnknown' | 'onExtra' | 'onBatchFailure'
  >,
): Promise<void> {
  let results: Map<number, BatchItemResult>;
  try {
    results = await options.run(
      rows.map((row) => row.item),
      batch,
    );
  } catch (error) {
    const [only] = rows;
    if (rows.length === 1 && only) return only.reject(error);
    options.onBatchFailure(error, rows.length);
    await Promise.all(rows.map((row) => runRows([row], batch, options)));
    return;
  }
  const forward: Pending<number, LaneResult>[] = [];
  const unknownIds: Pending<number, LaneResult>[] = [];
  for (const row of rows) {
    const result = results.get(row.item);
    results.delete(row.item);
    if (!result) row.reject(new MissingBatchResultError(row.item));
    else if (result.kind === 'forward') forward.push(row);
    else if (result.kind === 'unknownId') unknownIds.push(row);
    else if (result.kind === 'failed') row.reject(result.error);
    else row.resolve(result);
  }
  if (forward.length > 0) options.forward(forward);
  if (unknownIds.length > 0) {
    if (options.forwardUnknown) options.forwardUnknown(unknownIds);
    else for (const row of unknownIds) row.reject(new NoUnknownIdsLaneError(row.item));
  }
  for (const [id, result] of results) {
    if (result.kind === 'done' || result.kind === 'quarantined') options.onExtra?.(id, result);
  }
}

class NoUnknownIdsLaneError extends Error {
  override readonly name = 'NoUnknownIdsLaneError';
  constructor(id: number) {
    super(`inbox row ${id} is a webhook about an unknown id, and there is no lane to hand it to`);
  }
}
