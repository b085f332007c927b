import { journalFor } from '../books/sql.js';
import type { Sql } from '../db/client.js';
import { deliveriesOf } from '../inbox/sql/deliveries.js';
import {
  discrepanciesOf,
  saleById,
  saleItemsOf,
  statusHistoryOf,
  withdrawalById,
} from '../mirror/sql/story.js';
import { renderJsonDocument, renderRecords, type OutputFormat } from './format.js';

export type ResourceType = 'sale' | 'withdrawal';

/** Deliveries shown per record: a record fed by more is a story for `inbox list --resource`. */
const DELIVERIES_SHOWN = 200;

/** One record as the mirror holds it, with everything that explains its state. */
export interface MirrorRecord {
  readonly record: object;
  readonly items?: readonly object[];
  readonly history: readonly object[];
  readonly deliveries: readonly object[];
  readonly discrepancies: readonly object[];
  /** Its entries in the books (ledger_entries), oldest first. */
  readonly journal: readonly object[];
}

export async function loadMirrorRecord(
  sql: Sql,
  type: ResourceType,
  id: number,
): Promise<MirrorRecord | null> {
  const record = type === 'sale' ? await saleById(sql, id) : await withdrawalById(sql, id);
  if (!record) return null;
  const [items, history, deliveries, discrepancies, journal] = await Promise.all([
    type === 'sale' ? saleItemsOf(sql, id) : null,
    statusHistoryOf(sql, type, id),
    deliveriesOf(sql, type, id, DELIVERIES_SHOWN),
    discrepanciesOf(sql, type, id),
    journalFor(sql, type, id),
  ]);
  return {
    record,
    ...(items ? { items } : {}),
    history,
    deliveries,
    discrepancies,
    journal,
  };
}

/**
 * JSON: one document. Table and CSV: one part after another, each under a `# name` line (the
 * record itself as field/value pairs), so a part can be cut out with a text tool.
 */
export function renderMirrorRecord(
  format: OutputFormat,
  type: ResourceType,
  found: MirrorRecord,
): string {
  if (format === 'json') return renderJsonDocument(mirrorDocument(type, found));
  const parts: [string, string][] = [
    [
      type,
      format === 'table'
        ? renderRecords(
            format,
            Object.keys(found.record).map((field) => ({
              field,
              value: cellText((found.record as Record<string, unknown>)[field]),
            })),
          )
        : renderRecords(format, [found.record]),
    ],
    ...Object.entries(rest(found)).map(([name, rows]): [string, string] => [
      name,
      rows.length === 0 && format === 'table' ? '(none)\n' : renderRecords(format, rows),
    ]),
  ];
  return parts.map(([name, text]) => `# ${name}\n${text}`).join('\n');
}

/** The record under its type's name (`sale`, `withdrawal`), then its other parts. */
export function mirrorDocument(type: ResourceType, found: MirrorRecord): object {
  return { [type]: found.record, ...rest(found) };
}

function rest(found: MirrorRecord): Record<string, readonly object[]> {
  const { record: _record, ...parts } = found;
  return parts as Record<string, readonly object[]>;
}

function cellText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
