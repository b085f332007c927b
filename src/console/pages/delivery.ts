import { isKeptHeader } from '../../inbox/delivery.js';
import { int, status, when } from '../format.js';
import { html } from '../html.js';
import { facts } from '../layout.js';
import type { PageHandler } from '../pageContext.js';
import { recordId } from '../params.js';
import { deliveryById } from '../../inbox/sql/deliveries.js';
import { consoleTable } from '../table.js';
import { saleHref, withdrawalHref } from './columns.js';

/** A body longer than this is cut on the page (it is whole in the database). */
const SHOWN_BODY_BYTES = 64 * 1024;

/** One delivery: where it came from, its headers and body, and what the worker made of it. */
export const deliveryPage: PageHandler = async (context) => {
  const id = recordId.safeParse(context.params.id);
  if (!id.success) return { kind: 'not_found', what: 'delivery' };
  const row = await deliveryById(context.sources.sql, id.data);
  if (!row) return { kind: 'not_found', what: `delivery ${id.data}` };

  const resourceId = int(row.resource_id, 'resource_id');
  const record =
    resourceId === null
      ? html`<span class="none">not read (quarantined before its id was known)</span>`
      : html`<a
          href="${row.resource_type === 'sale' ? saleHref(resourceId) : withdrawalHref(resourceId)}"
          >${row.resource_type} ${resourceId}</a
        >`;
  // The inbox never stores a secret header; shown through the same rule all the same.
  const headers = consoleTable(
    {
      name: 'headers',
      caption: 'Headers as received',
      columns: [
        { key: 'name', label: 'header', kind: 'text' },
        { key: 'value', label: 'value', kind: 'text' },
      ],
      empty: 'No headers were kept.',
    },
    Object.entries(row.headers)
      .filter(([name]) => isKeptHeader(name))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, value]) => ({ name, value: String(value) })),
  );
  const body = row.raw_body.subarray(0, SHOWN_BODY_BYTES).toString('utf8');
  const cut = row.raw_body.length > SHOWN_BODY_BYTES;
  const reason = row.quarantine_reason ?? row.last_error;
  return {
    kind: 'page',
    title: `Delivery ${id.data}`,
    section: 'deliveries',
    body: html`<h1>Delivery ${id.data}</h1>
      <section class="verdict" aria-label="Outcome">
        ${status(row.state)} ${row.outcome ? status(row.outcome) : null}
        ${reason ? html`<p class="reason"><strong>Why:</strong> ${reason}</p>` : null}
      </section>
      ${facts([
        ['Channel', row.channel],
        ['Record', record],
        ['Notified status', status(row.notified_status)],
        ['Received', when(row.received_at)],
        ['Last delivered', when(row.last_delivered_at)],
        ['Times delivered', String(row.delivery_count)],
        ['Enqueued', when(row.enqueued_at)],
        ['Processed', when(row.processed_at)],
        ['Worker attempts', String(row.attempts)],
        ['Source address', row.source_address ?? '—'],
        ['Event key', html`<code>${row.event_key}</code>`],
        ['Body SHA-256', html`<code>${row.body_sha256}</code>`],
      ])}
      ${context.table(headers)}
      <section>
        <h2>Body</h2>
        ${
          row.payload === null
            ? html`<p class="none">Not stored as JSON: the raw bytes below are what came.</p>`
            : html`<pre
                class="json"
                tabindex="0"
              ><code>${JSON.stringify(row.payload, null, 2)}</code></pre>`
        }
        <details ${row.payload === null ? html`open` : null}>
          <summary>Raw bytes as received (${String(row.raw_body.length)} bytes, UTF-8)</summary>
          <pre tabindex="0"><code>${body}</code></pre>
          ${cut ? html`<p class="none">Cut at ${String(SHOWN_BODY_BYTES)} bytes.</p>` : null}
        </details>
      </section>`,
  };
};
