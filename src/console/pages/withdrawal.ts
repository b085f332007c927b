import { int, money, status, when } from '../format.js';
import { html } from '../html.js';
import { facts } from '../layout.js';
import type { PageHandler } from '../pageContext.js';
import { recordId } from '../params.js';
import { withdrawalById } from '../../mirror/sql/story.js';
import { cashoutAttemptsOf } from '../../operations/sql.js';
import { consoleTable } from '../table.js';
import { cashoutColumns } from './cashouts.js';
import { journalSection } from './journal.js';
import { loadStory, whyNow } from './story.js';

/**
 * /console/withdrawals/:id: the withdrawal's row, the cashout that asked for it, its story and
 * its money journal.
 */
export const withdrawalPage: PageHandler = async (context) => {
  const id = recordId.safeParse(context.params.id);
  if (!id.success) return { kind: 'not_found', what: 'withdrawal' };
  const sql = context.sources.sql;
  const withdrawal = await withdrawalById(sql, id.data);
  if (!withdrawal) {
    return { kind: 'not_found', what: `withdrawal ${id.data} (the mirror has no such withdrawal)` };
  }
  const [attempts, story, journal] = await Promise.all([
    cashoutAttemptsOf(sql, id.data),
    loadStory(context, sql, 'withdrawal', id.data),
    journalSection(context, sql, 'withdrawal', id.data),
  ]);
  const attemptTable = consoleTable(
    {
      name: 'cashout-attempts',
      caption: 'Cashout attempts that created it',
      columns: cashoutColumns.filter((column) => column.key !== 'withdrawal_id'),
      empty: 'None: it was not requested through paymirror (or before attempts were kept).',
    },
    attempts,
  );
  return {
    kind: 'page',
    title: `Withdrawal ${id.data}`,
    section: null,
    body: html`<h1>Withdrawal ${id.data} ${status(withdrawal.status)}</h1>
      ${whyNow(withdrawal.status, story.history, {
        requestedAt: withdrawal.reconcile_requested_at,
        reason: withdrawal.reconcile_reason,
      })}
      <section aria-label="The mirror's row">
        <h2>The mirror's row</h2>
        ${facts([
          ['Status', status(withdrawal.status)],
          ['Amount', money(int(withdrawal.amount_cents, 'amount_cents'))],
          ['Net amount', money(int(withdrawal.net_amount_cents, 'net_amount_cents'))],
          ['Fees', money(int(withdrawal.fee_total_cents, 'fee_total_cents'))],
          ['PIX key', withdrawal.pix_key ?? '—'],
          ['PIX key type', withdrawal.pix_key_type ?? '—'],
          ['External id', withdrawal.external_id ?? '—'],
          ['Created at the gateway', when(withdrawal.created_at)],
          ['Updated at the gateway', when(withdrawal.gateway_updated_at)],
          ['Processed', when(withdrawal.processed_at)],
          ['First seen', when(withdrawal.first_seen_at)],
          ['Status observed', when(withdrawal.status_observed_at)],
          ['Last gateway read', when(withdrawal.gateway_read_at)],
          ['Last reconciled', when(withdrawal.last_reconciled_at)],
          ['Next check', when(withdrawal.next_reconcile_at)],
          ['Row updated', when(withdrawal.updated_at)],
        ])}
      </section>
      ${context.table(attemptTable)} ${story.sections} ${journal}`,
  };
};
