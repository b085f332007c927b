import type { ReportRow } from '../../reports/columns.js';
import { fieldValue } from '../format.js';
import { CONSOLE_PATH } from '../layout.js';
import type { ConsoleColumn } from '../table.js';

/** Links and columns more than one page shows. */

export function saleHref(id: number | string): string {
  return `${CONSOLE_PATH}/sales/${encodeURIComponent(String(id))}`;
}

export function withdrawalHref(id: number | string): string {
  return `${CONSOLE_PATH}/withdrawals/${encodeURIComponent(String(id))}`;
}

export function deliveryHref(id: number | string): string {
  return `${CONSOLE_PATH}/deliveries/${encodeURIComponent(String(id))}`;
}

export function runHref(id: number | string): string {
  return `${CONSOLE_PATH}/reconciliation/runs/${encodeURIComponent(String(id))}`;
}

/** A link from the id in `key` (none when the row has none). */
export function linkFrom(key: string, to: (id: number | string) => string) {
  return (row: ReportRow): string | null => {
    const id = row[key];
    return id === null || id === undefined ? null : to(id);
  };
}

/** The story page of the record a row names in `typeKey` and `idKey`. */
function recordHref(typeKey: string, idKey: string) {
  return (row: ReportRow): string | null => {
    const id = row[idKey];
    if (id === null || id === undefined) return null;
    if (row[typeKey] === 'sale') return saleHref(id);
    if (row[typeKey] === 'withdrawal') return withdrawalHref(id);
    return null;
  };
}

/** inbox_events as one line each: what came, about what, and what became of it. */
export const deliveryColumns: readonly ConsoleColumn[] = [
  { key: 'id', label: 'delivery', kind: 'integer', href: linkFrom('id', deliveryHref) },
  { key: 'received_at', label: 'received', kind: 'timestamp' },
  { key: 'channel', label: 'channel', kind: 'text' },
  { key: 'resource_type', label: 'record', kind: 'text' },
  {
    key: 'resource_id',
    label: 'record id',
    kind: 'integer',
    href: recordHref('resource_type', 'resource_id'),
  },
  { key: 'notified_status', label: 'notified', kind: 'text', badge: true },
  { key: 'state', label: 'state', kind: 'text', badge: true },
  { key: 'outcome', label: 'outcome', kind: 'text', badge: true },
  { key: 'reason', label: 'reason', kind: 'text' },
  { key: 'delivery_count', label: 'deliveries', kind: 'integer' },
  { key: 'attempts', label: 'attempts', kind: 'integer' },
];

/** A delivery row with `reason`: why it was quarantined, or the last error of its job. */
export function withReason<
  T extends { quarantine_reason: string | null; last_error: string | null },
>(row: T): T & { reason: string | null } {
  return { ...row, reason: row.quarantine_reason ?? row.last_error };
}

export const discrepancyColumns: readonly ConsoleColumn[] = [
  { key: 'detected_at', label: 'detected', kind: 'timestamp' },
  { key: 'run_id', label: 'run', kind: 'integer', href: linkFrom('run_id', runHref) },
  { key: 'source', label: 'found by', kind: 'text' },
  { key: 'resource_type', label: 'record', kind: 'text' },
  {
    key: 'resource_id',
    label: 'record id',
    kind: 'integer',
    href: recordHref('resource_type', 'resource_id'),
  },
  { key: 'field', label: 'field', kind: 'text' },
  {
    key: 'mirror_value',
    label: 'mirror said',
    kind: 'text',
    display: (row) => fieldValue(String(row.field), row.mirror_value as string | null),
  },
  {
    key: 'gateway_value',
    label: 'gateway said',
    kind: 'text',
    display: (row) => fieldValue(String(row.field), row.gateway_value as string | null),
  },
  { key: 'action', label: 'action', kind: 'text', badge: true },
  {
    key: 'inbox_event_id',
    label: 'delivery',
    kind: 'integer',
    href: linkFrom('inbox_event_id', deliveryHref),
  },
];

/** The columns without the record's own type and id (on that record's page). */
export function withoutRecord(columns: readonly ConsoleColumn[]): ConsoleColumn[] {
  return columns.filter((column) => column.key !== 'resource_type' && column.key !== 'resource_id');
}
