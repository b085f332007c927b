import { InvalidArgumentError, Option } from 'commander';

export type OutputFormat = 'table' | 'json';

export function formatOption(): Option {
  return new Option('--format <format>', 'output format')
    .choices(['table', 'json'])
    .default('table');
}

/** "90d", "2h", "30m", "45s" → seconds. */
export function parseDuration(value: string): number {
  const match = /^([0-9]{1,9})(s|m|h|d)$/.exec(value);
  if (!match) throw new InvalidArgumentError('expected a duration like 30m, 2h or 90d');
  const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

/** Rows as aligned text columns (dates in ISO 8601, nulls as -). */
export function formatTable(rows: readonly object[], columns?: readonly string[]): string {
  const names = columns ?? Object.keys(rows[0] ?? {});
  if (names.length === 0) return '(none)\n';
  const cell = (value: unknown) =>
    value === null || value === undefined
      ? '-'
      : value instanceof Date
        ? value.toISOString()
        : String(value);
  const table = [
    names,
    ...rows.map((row) => names.map((name) => cell((row as Record<string, unknown>)[name]))),
  ];
  const widths = names.map((_, i) => Math.max(...table.map((line) => (line[i] ?? '').length)));
  return (
    table
      .map((line) =>
        line
          .map((text, i) => text.padEnd(widths[i] ?? 0))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

export function print(format: OutputFormat, value: unknown, table: () => string): void {
  process.stdout.write(format === 'json' ? `${JSON.stringify(value, null, 2)}\n` : table());
}
