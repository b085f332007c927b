/**
 * The side-by-side table: per status, sandbox (truth) and mirror, count and total in R$.
 */
import { formatBrl } from '../domain/money.js';
import type { Comparison, RecordMismatch, ResourceComparison, StatusRow } from './compare.js';

const STATUS_WIDTH = 18;
const COUNT_WIDTH = 6;
const MONEY_WIDTH = 16;

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

function resourceTable(label: string, resource: ResourceComparison): string[] {
  const side = COUNT_WIDTH + 1 + MONEY_WIDTH;
  const header1 = `  ${label.padEnd(STATUS_WIDTH)} ${'sandbox (truth)'.padStart(side)}   ${'mirror'.padStart(side)}`;
  const header2 = `  ${''.padEnd(STATUS_WIDTH)} ${'count'.padStart(COUNT_WIDTH)} ${'total'.padStart(MONEY_WIDTH)}   ${'count'.padStart(COUNT_WIDTH)} ${'total'.padStart(MONEY_WIDTH)}`;
  const rule = `  ${'-'.repeat(header2.length - 2)}`;
  const rows = resource.rows.length > 0 ? resource.rows.map(formatRow) : ['  (none)'];
  return [header1, header2, rule, ...rows, rule, formatRow(resource.total)];
}

function formatRow(row: StatusRow): string {
  return (
    `  ${row.status.padEnd(STATUS_WIDTH)} ` +
    `${String(row.truthCount).padStart(COUNT_WIDTH)} ${formatBrl(row.truthCents).padStart(MONEY_WIDTH)}   ` +
    `${String(row.mirrorCount).padStart(COUNT_WIDTH)} ${formatBrl(row.mirrorCents).padStart(MONEY_WIDTH)}` +
    (row.matches ? '' : '   ✗ mismatch')
  );
}

function mismatchLines(comparison: Comparison, limit: number): string[] {
  const all = [...comparison.sales.mismatches, ...comparison.withdrawals.mismatches];
  const shown = all.slice(0, limit).map((mismatch) => `  ${describeMismatch(mismatch)}`);
  if (all.length > limit) shown.push(`  … and ${all.length - limit} more`);
  return shown;
}

export function describeMismatch(mismatch: RecordMismatch): string {
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
