import { duration, int, status, when } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { CONSOLE_PATH, facts } from '../layout.js';
import type { GatewayBudget, PageHandler } from '../pageContext.js';
import { inboxHealth } from '../../inbox/sql/deliveries.js';
import { unresolvedCashoutCounts } from '../../operations/sql.js';
import { latestReconciliationRuns } from '../../reconciler/sql.js';
import { consoleTable } from '../table.js';
import { deliveryHref, runHref } from './columns.js';

const REFRESH_SECONDS = 10;

/**
 * Is the pipeline keeping up? Jobs per lane, the oldest delivery still waiting, the last
 * reconciliation, the gateway budget in use, cashouts waiting for a decision.
 */
export const healthPage: PageHandler = async (context) => {
  const { sql, queueDepths, gatewayBudget } = context.sources;
  const [queues, inbox, runs, cashouts, budget] = await Promise.all([
    queueDepths(),
    inboxHealth(sql),
    latestReconciliationRuns(sql),
    unresolvedCashoutCounts(sql),
    gatewayBudget ? gatewayBudget().catch((error: unknown) => ({ error })) : null,
  ]);
  const queueTable = consoleTable(
    {
      name: 'queues',
      caption: 'Queue depth per lane',
      columns: [
        { key: 'name', label: 'queue', kind: 'text' },
        { key: 'waiting', label: 'waiting', kind: 'integer' },
        { key: 'active', label: 'active', kind: 'integer' },
        { key: 'delayed', label: 'delayed (retrying)', kind: 'integer' },
        { key: 'failed', label: 'failed', kind: 'integer' },
        { key: 'oldest_waiting_seconds', label: 'oldest waiting', kind: 'duration' },
      ],
      empty: 'This process knows no queue.',
    },
    queues.map((queue) => ({
      name: queue.name,
      waiting: queue.counts.waiting ?? 0,
      active: queue.counts.active ?? 0,
      delayed: queue.counts.delayed ?? 0,
      failed: queue.counts.failed ?? 0,
      oldest_waiting_seconds: Math.floor(queue.oldestWaitingSeconds),
    })),
  );
  const oldestId = int(inbox.oldest_pending_id, 'oldest_pending_id');
  const oldestAge = int(inbox.oldest_pending_age_seconds, 'oldest_pending_age_seconds');
  const latest = runs.latest;
  const undecided = cashouts.pending + cashouts.unknown;
  return {
    kind: 'page',
    title: 'Health',
    section: 'health',
    body: html`<h1>Health</h1>
      <div
        class="live"
        data-refresh-seconds="${REFRESH_SECONDS}"
        id="health-live"
        aria-live="polite"
      >
        ${context.table(queueTable)}
        <section aria-label="Inbox">
          <h2>Inbox</h2>
          ${facts([
            [
              'Oldest delivery still pending',
              oldestId === null
                ? 'none: every delivery was processed'
                : html`<a href="${deliveryHref(oldestId)}">delivery ${oldestId}</a>, waiting
                    ${duration(oldestAge)} (since ${when(inbox.oldest_pending_at)})`,
            ],
            ['Pending', String(inbox.pending)],
            [
              'Quarantined',
              html`<a href="${CONSOLE_PATH}/deliveries?state=quarantined"
                >${String(inbox.quarantined)}</a
              >`,
            ],
            [
              'Failed (waiting for inbox replay)',
              html`<a href="${CONSOLE_PATH}/deliveries?state=failed">${String(inbox.failed)}</a>`,
            ],
          ])}
        </section>
        <section aria-label="Reconciliation">
          <h2>Reconciliation</h2>
          ${facts([
            [
              'Last run',
              latest
                ? html`<a href="${runHref(latest.id)}">run ${latest.id}</a> ${status(latest.status)}
                    (${latest.trigger}), started ${when(latest.started_at)}, finished
                    ${when(latest.finished_at)}: ${String(latest.checked)} checked,
                    ${String(latest.corrected)} corrected`
                : 'none yet',
            ],
            [
              'Last successful run',
              runs.lastSucceeded
                ? html`<a href="${runHref(runs.lastSucceeded.id)}">run ${runs.lastSucceeded.id}</a>,
                    finished ${when(runs.lastSucceeded.finished_at)}`
                : 'none yet',
            ],
          ])}
        </section>
        <section aria-label="Gateway budget">
          <h2>Gateway budget</h2>
          ${budgetFacts(budget)}
        </section>
        <section aria-label="Cashouts">
          <h2>Cashouts</h2>
          <p>
            ${
              undecided === 0
                ? 'No cashout waits for a decision.'
                : html`<a href="${CONSOLE_PATH}/cashouts"
                      >${String(undecided)} cashout attempt(s)</a
                    >
                    wait for a decision (${String(cashouts.unknown)} unknown,
                    ${String(cashouts.pending)} pending).`
            }
          </p>
        </section>
      </div>`,
  };
};

function budgetFacts(budget: GatewayBudget | { error: unknown } | null): SafeHtml {
  if (budget === null) {
    return html`<p>No gateway keys are configured: nothing is read from the gateway.</p>`;
  }
  if ('error' in budget) {
    return html`<p class="problem">The shared budget could not be read from Redis.</p>`;
  }
  const inUse = Math.max(0, budget.maxPerSecond - Math.floor(budget.available));
  return facts([
    ['Limit (GATEWAY_MAX_RPS, every process together)', `${budget.maxPerSecond} requests/s`],
    [
      'In use now',
      html`<meter
          min="0"
          max="${budget.maxPerSecond}"
          value="${inUse}"
          aria-label="Gateway requests in use this second"
        >
          ${inUse}
        </meter>
        ${inUse} of ${budget.maxPerSecond} (${Math.floor(budget.available)} left this second)`,
    ],
    ['Requests this process sent under it', String(budget.takenByThisProcess)],
  ]);
}
