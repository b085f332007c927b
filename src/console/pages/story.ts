import type { Sql } from '../../db/client.js';
import { fieldValue, int, status, when } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import type { PageContext } from '../pageContext.js';
import { deliveriesOf, type ResourceType } from '../../inbox/sql/deliveries.js';
import {
  discrepanciesOf,
  statusHistoryOf,
  type DiscrepancyRow,
  type HistoryRow,
} from '../../mirror/sql/story.js';
import { consoleTable, type ConsoleColumn } from '../table.js';
import {
  deliveryColumns,
  deliveryHref,
  discrepancyColumns,
  linkFrom,
  runHref,
  withReason,
  withoutRecord,
} from './columns.js';

/**
 * What a record's page tells besides its own row, the same for sales and withdrawals: the
 * timeline of its status history, the deliveries that fed it, what the gateway's reads said,
 * and every discrepancy found about it. Together they answer "why is it in this state?".
 */
export interface Story {
  readonly history: readonly HistoryRow[];
  readonly discrepancies: readonly DiscrepancyRow[];
  readonly sections: SafeHtml;
}

const DELIVERIES_SHOWN = 200;

export async function loadStory(
  context: PageContext,
  sql: Sql,
  resourceType: ResourceType,
  id: number,
): Promise<Story> {
  const [history, deliveries, discrepancies] = await Promise.all([
    statusHistoryOf(sql, resourceType, id),
    deliveriesOf(sql, resourceType, id, DELIVERIES_SHOWN),
    discrepanciesOf(sql, resourceType, id),
  ]);
  const timeline = consoleTable(
    {
      name: 'history',
      caption: 'Status history',
      columns: historyColumns,
      empty: 'No status recorded yet.',
      rowClass: (row) => (row.entered === 'entered' ? null : 'observed'),
    },
    history.map((row) => ({
      ...row,
      entered: row.entered ? 'entered' : 'observed, not entered',
    })),
  );
  const fed = consoleTable(
    {
      name: 'deliveries',
      caption: 'Deliveries about it',
      columns: withoutRecord(deliveryColumns),
      empty: 'No notification about it was received (it was learnt from a gateway read).',
      rowClass: (row) =>
        row.state === 'quarantined' || row.state === 'failed' ? 'attention' : null,
    },
    deliveries.map(withReason),
  );
  const reads = consoleTable(
    {
      name: 'gateway-reads',
      caption: "What the gateway's reads said",
      columns: readColumns,
      empty: 'No gateway read changed or questioned it.',
    },
    gatewayReads(history, discrepancies),
  );
  const found = consoleTable(
    {
      name: 'discrepancies',
      caption: 'Discrepancies',
      columns: withoutRecord(discrepancyColumns),
      empty: 'No discrepancy was found about it.',
    },
    discrepancies,
  );
  return {
    history,
    discrepancies,
    sections: html`${context.table(timeline)}
      <p class="note">
        A row marked <em>observed, not entered</em> is a status the gateway authentically reported
        after the mirror had already moved past it: part of the story, never the current state.
      </p>
      ${context.table(fed)}
      ${
        deliveries.length === DELIVERIES_SHOWN
          ? html`<p class="note">The first ${DELIVERIES_SHOWN} deliveries are shown.</p>`
          : null
      }
      ${context.table(reads)} ${context.table(found)}`,
  };
}

/**
 * One sentence on why the record is in its status: the history row that entered it (when, by
 * what), and whether a gateway read is due or disagreed.
 */
export function whyNow(
  current: string,
  history: readonly HistoryRow[],
  pending: { readonly requestedAt: Date | string | null; readonly reason: string | null },
): SafeHtml {
  const entry = [...history].reverse().find((row) => row.entered && row.to_status === current);
  const inboxId = entry ? int(entry.inbox_event_id, 'inbox_event_id') : null;
  const cause = entry
    ? html`${status(current)} since ${when(entry.observed_at)}, set by
      ${sourceText(entry.source)}${
        inboxId === null
          ? null
          : html` (<a href="${deliveryHref(inboxId)}">delivery ${inboxId}</a>)`
      }${
        entry.from_status
          ? html`, coming from ${status(entry.from_status)}`
          : html`, the first status seen`
      }.`
    : html`${status(current)}: no history row entered it (written before history was kept, or by a
      correction).`;
  const observed = history.filter((row) => !row.entered);
  return html`<section class="why" aria-label="Why it is in this state">
    <h2>Why it is in this state</h2>
    <p>${cause}</p>
    ${
      observed.length > 0
        ? html`<p>
            Also observed after the mirror had moved past them:
            ${observed.map((row, index) => html`${index > 0 ? ', ' : ''}${status(row.to_status)}`)}.
          </p>`
        : null
    }
    ${
      pending.requestedAt
        ? html`<p>
            A gateway read was asked for
            ${when(pending.requestedAt)}${pending.reason ? html` (${pending.reason})` : null}: the
            reconciler takes it first.
          </p>`
        : null
    }
  </section>`;
}

function sourceText(source: string): string {
  switch (source) {
    case 'postback':
      return 'a signed postback';
    case 'webhook':
      return "a webhook checked against the gateway's read";
    case 'reconcile':
      return 'a reconciliation read of the gateway';
    case 'api':
      return 'a gateway read made by a command (a cashout, a resolve)';
    default:
      return source;
  }
}

const historyColumns: readonly ConsoleColumn[] = [
  { key: 'observed_at', label: 'observed', kind: 'timestamp' },
  { key: 'from_status', label: 'from', kind: 'text', badge: true },
  { key: 'to_status', label: 'to', kind: 'text', badge: true },
  { key: 'source', label: 'source', kind: 'text' },
  { key: 'entered', label: 'entered', kind: 'text' },
  {
    key: 'inbox_event_id',
    label: 'delivery',
    kind: 'integer',
    href: linkFrom('inbox_event_id', deliveryHref),
  },
  { key: 'recorded_at', label: 'recorded', kind: 'timestamp' },
];

const readColumns: readonly ConsoleColumn[] = [
  { key: 'at', label: 'when', kind: 'timestamp' },
  { key: 'source', label: 'read by', kind: 'text' },
  { key: 'said', label: 'what it said', kind: 'text' },
  { key: 'action', label: 'what was done', kind: 'text', badge: true },
  { key: 'run_id', label: 'run', kind: 'integer', href: linkFrom('run_id', runHref) },
];

/**
 * The gateway's reads of the record, oldest first: the status changes they wrote (history rows
 * from a reconciliation or a command's read) and the differences they found (discrepancies from
 * a reconciliation or a webhook's confirmation).
 */
function gatewayReads(
  history: readonly HistoryRow[],
  discrepancies: readonly DiscrepancyRow[],
): Record<string, unknown>[] {
  const changes = history
    .filter((row) => row.source === 'reconcile' || row.source === 'api')
    .map((row) => ({
      at: row.observed_at,
      source: row.source,
      said: `status ${row.to_status}${row.from_status ? ` (mirror had ${row.from_status})` : ''}`,
      action: row.entered ? 'entered' : 'observed, not entered',
      run_id: null,
    }));
  const differences = discrepancies
    .filter((row) => row.source === 'reconcile' || row.source === 'confirmation')
    .map((row) => ({
      at: row.detected_at,
      source: row.source,
      said:
        `${row.field}: ${fieldValue(row.field, row.gateway_value)} ` +
        `(mirror had ${fieldValue(row.field, row.mirror_value)})`,
      action: row.action,
      run_id: row.run_id,
    }));
  return [...changes, ...differences].sort(
    (a, b) => new Date(a.at).getTime() - new Date(b.at).getTime(),
  );
}
