/**
 * The side-by-side table: per status, sandbox (truth) and mirror, count and total in R$.
 */
import type { Column } from '../reports/columns.js';
import { renderTable } from '../reports/render.js';
import type { Comparison, RecordMismatch, ResourceComparison } from './compare.js';

const COLUMNS = (label: string): readonly Column[] => [
  { key: 'status', label, kind: 'text' },
  { key: 'truthCount', label: 'sandbox', kind: 'integer' },
  { key: 'truthCents', label: 'sandbox total', kind: 'cents' },
  { key: 'mirrorCount', label: 'mirror', kind: 'integer' },
  { key: 'mirrorCents', label: 'mirror total', kind: 'cents' },
  { key: 'mark', label: '', kind: 'text' },
];

export function formatComparison(title: string, comparison: Comparison, listLimit = 10): string {
  const lines = [
    title,
    '',
    ...resourceTable('Sales', comparison.sales),
    '',
    ...resourceTable('Withdrawals', comparison.withdrawals),
    '  (a bank-rejected withdrawal is REJECTED in notifications and FAILED when read: one row)',
    '',
    `Mismatching records: ${comparison.mismatchingRecords}`,
    ...mismatchLines(comparison, listLimit),
  ];
  return `${lines.join('\n')}\n`;
}

/** Per status, the sandbox's (truth) and the mirror's count and total, in the reports' table. */
function resourceTable(label: string, resource: ResourceComparison): string[] {
  const rows = [...resource.rows, resource.total].map((row) => ({
    status: row.status,
    truthCount: row.truthCount,
    truthCents: row.truthCents,
    mirrorCount: row.mirrorCount,
    mirrorCents: row.mirrorCents,
    mark: row.matches ? '' : '✗ mismatch',
  }));
  return renderTable(COLUMNS(label), rows)
    .trimEnd()
    .split('\n')
    .map((line) => `  ${line}`.trimEnd());
}

function mismatchLines(comparison: Comparison, limit: number): string[] {
  const all = [...comparison.sales.mismatches, ...comparison.withdrawals.mismatches];
  const shown = all.slice(0, limit).map((mismatch) => `  ${describeMismatch(mismatch)}`);
  if (all.length > limit) shown.push(`  … and ${all.length - limit} more`);
  return shown;
}

function describeMismatch(mismatch: RecordMismatch): string {
  const name = `${mismatch.resource} ${mismatch.id}`;
  switch (mismatch.kind) {
    case 'missing_in_mirror':
      return `${name}: missing from the mirror`;
    case 'unknown_to_gateway':
      return `${name}: in the mirror, unknown to the sandbox`;
    case 'differs':
      return `${name}: ${mismatch.differences
        .map((d) => `${d.field} sandbox ${d.truth}, mirror ${d.mirror}`)
        .join('; ')}`;
  }
}
