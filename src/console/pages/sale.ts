import { int, money, status, when } from '../format.js';
import { html } from '../html.js';
import { facts } from '../layout.js';
import type { PageHandler } from '../pageContext.js';
import { recordId } from '../params.js';
import { saleById, saleItemsOf } from '../../mirror/sql/story.js';
import { consoleTable } from '../table.js';
import { journalSection } from './journal.js';
import { loadStory, whyNow } from './story.js';

/** /console/sales/:id: the sale's row, its items, its story and its money journal. */
export const salePage: PageHandler = async (context) => {
  const id = recordId.safeParse(context.params.id);
  if (!id.success) return { kind: 'not_found', what: 'sale' };
  const sql = context.sources.sql;
  const sale = await saleById(sql, id.data);
  if (!sale) return { kind: 'not_found', what: `sale ${id.data} (the mirror has no such sale)` };
  const [items, story, journal] = await Promise.all([
    saleItemsOf(sql, id.data),
    loadStory(context, sql, 'sale', id.data),
    journalSection(context, sql, 'sale', id.data),
  ]);
  const itemTable = consoleTable(
    {
      name: 'items',
      caption: 'Items',
      columns: [
        { key: 'item_id', label: 'item', kind: 'integer' },
        { key: 'title', label: 'title', kind: 'text' },
        { key: 'unit_price_cents', label: 'unit price', kind: 'cents' },
        { key: 'quantity', label: 'quantity', kind: 'integer' },
        { key: 'tangible', label: 'tangible', kind: 'text' },
      ],
      empty: 'No items known.',
    },
    items.map((item) => ({ ...item, tangible: item.tangible ? 'yes' : 'no' })),
  );
  const card =
    sale.card_brand || sale.card_last_four
      ? `${sale.card_brand ?? ''} •••• ${sale.card_last_four ?? '????'}`.trim()
      : null;
  return {
    kind: 'page',
    title: `Sale ${id.data}`,
    section: null,
    body: html`<h1>Sale ${id.data} ${status(sale.status)}</h1>
      ${whyNow(sale.status, story.history, {
        requestedAt: sale.reconcile_requested_at,
        reason: sale.reconcile_reason,
      })}
      <section aria-label="The mirror's row">
        <h2>The mirror's row</h2>
        ${facts([
          ['Status', status(sale.status)],
          ['Payment method', sale.payment_method],
          ['Amount', money(int(sale.amount_cents, 'amount_cents'))],
          ['Net amount', money(int(sale.net_amount_cents, 'net_amount_cents'))],
          ['System fee', money(int(sale.system_fee_cents, 'system_fee_cents'))],
          ['Reserve', money(int(sale.reserve_amount_cents, 'reserve_amount_cents'))],
          ['Installments', sale.installments === null ? '—' : String(sale.installments)],
          ['Customer', sale.customer_name ?? '—'],
          ['Email', sale.customer_email ?? '—'],
          ['Document', sale.customer_document ?? '—'],
          ['Phone', sale.customer_phone ?? '—'],
          ['Card', card ?? '—'],
          ['External transaction id', sale.external_transaction_id ?? '—'],
          ['Created at the gateway', when(sale.created_at)],
          ['Completed', when(sale.completed_at)],
          ['First seen', when(sale.first_seen_at)],
          ['Status observed', when(sale.status_observed_at)],
          ['Last gateway read', when(sale.gateway_read_at)],
          ['Last reconciled', when(sale.last_reconciled_at)],
          ['Next check', when(sale.next_reconcile_at)],
          ['Row updated', when(sale.updated_at)],
        ])}
      </section>
      ${context.table(itemTable)} ${story.sections} ${journal}`,
  };
};
