import { html } from '../html.js';
import type { PageHandler } from '../pageContext.js';
import { pageParams, queryOf } from '../params.js';
import { settledCashoutAttempts, undecidedCashoutAttempts } from '../../operations/sql.js';
import { consoleTable, type ConsoleColumn } from '../table.js';
import { linkFrom, withdrawalHref } from './columns.js';

const PAGE_SIZE = 100;
const UNDECIDED_SHOWN = 500;

export const cashoutColumns: readonly ConsoleColumn[] = [
  { key: 'id', label: 'attempt', kind: 'integer' },
  { key: 'requested_at', label: 'requested', kind: 'timestamp' },
  { key: 'amount_cents', label: 'amount', kind: 'cents' },
  { key: 'pix_key_type', label: 'key type', kind: 'text' },
  { key: 'pix_key', label: 'PIX key', kind: 'text' },
  { key: 'outcome', label: 'outcome', kind: 'text', badge: true },
  {
    key: 'withdrawal_id',
    label: 'withdrawal',
    kind: 'integer',
    href: linkFrom('withdrawal_id', withdrawalHref),
  },
  { key: 'detail', label: 'detail', kind: 'text' },
  { key: 'finished_at', label: 'finished', kind: 'timestamp' },
];

/** `paymirror cashouts resolve` (src/cli/operatorCommands.ts) for an attempt of unknown outcome. */
function resolveCommand(attemptId: string | number): string {
  return `paymirror cashouts resolve ${attemptId} --withdrawal <id> | --not-paid`;
}

/**
 * cashout_attempts: first those whose outcome nobody knows (pending or unknown), each with the
 * command that records the decision; then the settled ones, newest first.
 */
export const cashoutsPage: PageHandler = async (context) => {
  const parsed = pageParams.safeParse(queryOf(context.url));
  const before = parsed.success ? parsed.data.before : null;
  const sql = context.sources.sql;
  const [undecided, settled] = await Promise.all([
    undecidedCashoutAttempts(sql, UNDECIDED_SHOWN),
    settledCashoutAttempts(sql, { beforeId: before, limit: PAGE_SIZE }),
  ]);
  const undecidedTable = consoleTable(
    {
      name: 'undecided',
      caption: 'Waiting for a decision',
      columns: [...cashoutColumns, { key: 'decide_with', label: 'decide with', kind: 'text' }],
      empty: 'No cashout waits for a decision.',
      rowClass: () => 'attention',
    },
    undecided.map((row) => ({ ...row, decide_with: resolveCommand(row.id) })),
  );
  const settledTable = consoleTable(
    {
      name: 'settled',
      caption: before === null ? 'Settled attempts' : `Settled attempts before #${before}`,
      columns: cashoutColumns,
      empty: 'No settled cashout attempt.',
    },
    settled,
  );
  const last = settled.at(-1);
  return {
    kind: 'page',
    title: 'Cashouts',
    section: 'cashouts',
    body: html`<h1>Cashouts</h1>
      <p class="lede">
        ${
          undecided.length === 0
            ? 'Every cashout paymirror sent has a known outcome.'
            : html`<strong>${String(undecided.length)}</strong> cashout attempt(s) have no known
                outcome. Each may have paid: look for a withdrawal of that amount to that PIX key at
                the gateway (or wait for its webhook), then record what you found with the command
                shown. <code>paymirror cashout</code> refuses to send another until then.`
        }
      </p>
      ${context.table(undecidedTable)} ${context.table(settledTable)}
      ${
        last && settled.length === PAGE_SIZE
          ? html`<p>
              <a href="${context.withQuery({ before: String(last.id) })}">Older attempts</a>
            </p>`
          : null
      }`,
  };
};
