import { html, type SafeHtml } from '../html.js';
import { CONSOLE_PATH } from '../layout.js';
import type { PageHandler } from '../pageContext.js';
import {
  CHANNELS,
  deliveryFilterSchema,
  OUTCOME_NAMES,
  queryOf,
  RESOURCE_TYPES,
  STATES,
  type DeliveryParams,
} from '../params.js';
import { listDeliveries } from '../../inbox/sql/deliveries.js';
import { consoleTable } from '../table.js';
import { deliveryColumns, withReason } from './columns.js';

const PAGE_SIZE = 100;
const REFRESH_SECONDS = 5;

/** The live tail: inbox_events newest first, filtered, refreshed every few seconds. */
export const deliveriesPage: PageHandler = async (context) => {
  const parsed = deliveryFilterSchema.safeParse(queryOf(context.url));
  if (!parsed.success) {
    return {
      kind: 'bad_request',
      problem: parsed.error.issues.map((issue) => issue.message).join('; '),
      back: `${CONSOLE_PATH}/deliveries`,
    };
  }
  const filter = parsed.data;
  const rows = await listDeliveries(context.sources.sql, {
    channel: filter.channel,
    state: filter.state,
    outcome: filter.outcome,
    resourceType: filter.type,
    resourceId: filter.record,
    from: filter.from,
    to: filter.to,
    beforeId: filter.before,
    limit: PAGE_SIZE,
  });
  const table = consoleTable(
    {
      name: 'deliveries',
      caption: filter.before === null ? 'Newest deliveries' : `Deliveries before #${filter.before}`,
      columns: deliveryColumns,
      empty: 'No delivery matches these filters.',
      rowClass: (row) =>
        row.state === 'quarantined' || row.state === 'failed' ? 'attention' : null,
    },
    rows.map(withReason),
  );
  const last = rows.at(-1);
  const live = filter.before === null;
  return {
    kind: 'page',
    title: 'Deliveries',
    section: 'deliveries',
    body: html`<h1>Deliveries</h1>
      <p class="lede">
        Every notification the gateway sent that passed authentication, as stored before it was
        answered: open one for its headers, body and outcome.
      </p>
      ${filterForm(filter)}
      <div
        class="live"
        ${live ? html`data-refresh-seconds="${REFRESH_SECONDS}"` : null}
        aria-live="polite"
        id="deliveries-live"
      >
        ${context.table(table)}
      </div>
      ${
        live
          ? html`<p class="refresh">
              <label
                ><input type="checkbox" id="auto-refresh" checked /> Refresh every
                ${REFRESH_SECONDS} s</label
              >
              <span id="refreshed-at"></span>
            </p>`
          : null
      }
      ${
        last && rows.length === PAGE_SIZE
          ? html`<p>
              <a href="${context.withQuery({ before: String(last.id) })}">Older deliveries</a>
            </p>`
          : null
      }`,
  };
};

function filterForm(filter: DeliveryParams): SafeHtml {
  const choice = (name: string, label: string, values: readonly string[], current: string | null) =>
    html`<div class="field">
      <label for="filter-${name}">${label}</label>
      <select id="filter-${name}" name="${name}">
        <option value="">any</option>
        ${values.map(
          (value) =>
            html`<option value="${value}" ${value === current ? html`selected` : null}>
              ${value}
            </option>`,
        )}
      </select>
    </div>`;
  return html`<form class="filters" method="get" action="${CONSOLE_PATH}/deliveries">
    ${choice('channel', 'Channel', CHANNELS, filter.channel)}
    ${choice('state', 'State', STATES, filter.state)}
    ${choice('outcome', 'Outcome', OUTCOME_NAMES, filter.outcome)}
    ${choice('type', 'Record type', RESOURCE_TYPES, filter.type)}
    <div class="field">
      <label for="filter-record">Record id</label>
      <input
        id="filter-record"
        name="record"
        inputmode="numeric"
        pattern="[0-9]{1,15}"
        value="${filter.record === null ? '' : String(filter.record)}"
        size="10"
      />
    </div>
    <div class="field">
      <label for="filter-from">Received from (São Paulo)</label>
      <input id="filter-from" name="from" type="datetime-local" value="${filter.from ?? ''}" />
    </div>
    <div class="field">
      <label for="filter-to">Received to (São Paulo)</label>
      <input id="filter-to" name="to" type="datetime-local" value="${filter.to ?? ''}" />
    </div>
    <div class="field actions">
      <button type="submit">Filter</button>
      <a href="${CONSOLE_PATH}/deliveries">Clear</a>
    </div>
  </form>`;
}
