import { sumEntries, type ResourceType } from '../../books/ledgerRules.js';
import { journalFor } from '../../books/sql.js';
import type { Sql } from '../../db/client.js';
import { money } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { facts } from '../layout.js';
import type { PageContext } from '../pageContext.js';
import { consoleTable, type ConsoleColumn } from '../table.js';

const journalColumns: readonly ConsoleColumn[] = [
  { key: 'id', label: 'entry', kind: 'integer' },
  { key: 'effective_at', label: 'effective', kind: 'timestamp' },
  { key: 'account', label: 'account', kind: 'text' },
  { key: 'kind', label: 'kind', kind: 'text' },
  { key: 'amount_cents', label: 'amount', kind: 'cents' },
  { key: 'source', label: 'source', kind: 'text' },
  { key: 'recorded_at', label: 'recorded', kind: 'timestamp' },
  { key: 'corrects_entry_id', label: 'corrects entry', kind: 'integer' },
  { key: 'original_kind', label: 'late entry of kind', kind: 'text' },
  { key: 'original_effective_at', label: 'late entry moved', kind: 'timestamp' },
];

/**
 * A record's money journal (docs/finance.md, "The journal"): its entries in booking order, an
 * adjustment with the entry it corrects and what it stands for, and what they book per account.
 */
export async function journalSection(
  context: PageContext,
  sql: Sql,
  resourceType: ResourceType,
  id: number,
): Promise<SafeHtml> {
  const table = consoleTable(
    {
      name: 'journal',
      caption: 'Money journal',
      columns: journalColumns,
      empty: 'No entry: this record has moved no money.',
      rowClass: (row) => (row.kind === 'adjustment' ? 'attention' : null),
    },
    await journalFor(sql, resourceType, id),
  );
  const booked = sumEntries(
    table.rows.map((row) => ({
      account: String(row.account),
      amountCents: typeof row.amount_cents === 'number' ? row.amount_cents : 0,
    })),
  );
  return html`<section aria-label="Money journal" class="journal">
    ${context.table(table)}
    <h3>Booked balance</h3>
    ${facts([
      ['Available', money(booked.available)],
      ['Reserved', money(booked.reserved)],
    ])}
  </section>`;
}
