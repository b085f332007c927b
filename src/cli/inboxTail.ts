import type { Sql } from '../db/client.js';
import type { TailRow } from '../inbox/sql/operator.js';
import { renderRecords, type OutputFormat } from './format.js';

const BATCH = 500;

/**
 * Follows the inbox: prints each new delivery as it is stored and again when the worker
 * settles it (pending → processed, quarantined or failed), until `stopped` resolves. Table
 * lines are fixed-width without a header; JSON is one object a line; CSV has one header.
 */
export async function followInbox(
  sql: Sql,
  options: {
    readonly format: OutputFormat;
    readonly afterId: number | null;
    readonly intervalMs: number;
    readonly write: (text: string) => void;
    /** Where a word for people goes (stderr), apart from the rows. */
    readonly notice: (text: string) => void;
    readonly stopped: Promise<unknown>;
  },
  tail: {
    lastInboxId(sql: Sql): Promise<number>;
    tailInbox(
      sql: Sql,
      afterId: number,
      watched: readonly number[],
      limit: number,
    ): Promise<TailRow[]>;
  },
): Promise<void> {
  let stop = false;
  void options.stopped.then(() => (stop = true));
  let cursor = options.afterId ?? (await tail.lastInboxId(sql));
  options.notice(`following the inbox after #${cursor} (Ctrl-C stops)\n`);
  const pending = new Map<number, string>();
  if (options.format === 'csv')
    options.write(renderRecords('csv', [blankRow]).split('\n')[0] + '\n');
  while (!stop) {
    const rows = await tail.tailInbox(sql, cursor, [...pending.keys()], BATCH);
    for (const row of rows) {
      cursor = Math.max(cursor, row.id);
      const before = pending.get(row.id);
      if (before === row.state) continue;
      if (row.state === 'pending') pending.set(row.id, row.state);
      else pending.delete(row.id);
      options.write(line(options.format, row));
    }
    if (rows.length < BATCH) {
      await Promise.race([
        new Promise((resolve) => setTimeout(resolve, options.intervalMs)),
        options.stopped,
      ]);
    }
  }
}

const blankRow: TailRow = {
  id: 0,
  received_at: new Date(0),
  channel: '',
  resource: null,
  status: null,
  state: '',
  outcome: null,
};

function line(format: OutputFormat, row: TailRow): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(JSON.parse(renderRecords('json', [row]))[0])}\n`;
    case 'csv':
      return renderRecords('csv', [row]).split('\n')[1] + '\n';
    case 'table':
      return (
        [
          row.received_at.toISOString(),
          `#${row.id}`.padEnd(8),
          row.channel.padEnd(8),
          (row.resource ?? '-').padEnd(22),
          (row.status ?? '-').padEnd(16),
          row.state.padEnd(11),
          row.outcome ?? '-',
        ].join('  ') + '\n'
      );
  }
}
