import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { cachedSource } from './cachedSource.js';

/** Values read at scrape time from the process's connections (null: this role has none). */
interface MetricSources {
  /** Age in seconds of the oldest pending inbox row, 0 when none. */
  oldestPendingAgeSeconds?: () => Promise<number>;
  /** Jobs by queue (lane), then by BullMQ state (waiting, active, delayed, …). */
  queueCounts?: () => Promise<Record<string, Record<string, number>>>;
  /** Seconds the oldest waiting job of each queue has waited (0 when none). */
  queueOldestAgeSeconds?: () => Promise<Record<string, number>>;
  /** Inbox rows needing attention or still to do, by state (pending, quarantined, failed). */
  inboxCounts?: () => Promise<Record<string, number>>;
  /** Deliveries waiting in the local spool for Postgres. */
  spoolPending?: () => Promise<number>;
  /** Cashout attempts that may have paid and nobody has checked, by outcome. */
  cashoutsUnresolved?: () => Promise<Record<string, number>>;
  /** Mirror records flagged for an operator, and those the gateway denied. */
  recordsNeedingAttention?: () => Promise<{ flagged: number; denied: number }>;
}

/** paymirror's Prometheus metrics (prefix paymirror_); one registry per process. */
export interface Metrics {
  readonly registry: Registry;
  readonly deliveries: Counter<'channel' | 'outcome' | 'reason'>;
  readonly workerOutcomes: Counter<'resource' | 'outcome'>;
  readonly acceptToApplied: Histogram;
  readonly sweeperRequeued: Counter;
  readonly gatewayCalls: Counter<'endpoint' | 'status'>;
  readonly gatewayIndeterminate: Counter<'endpoint' | 'status'>;
  readonly gatewayBudgetTaken: Counter;
  /** 1 while the base URL check (GET /api/transactions/{not a number} → 400) has not passed. */
  readonly gatewayBaseUrlUnchecked: Gauge;
  /** 1 while the breaker holds back the "not ours" classification (see gateway/notOursGate). */
  readonly gatewayNotOursPaused: Gauge;
  readonly gatewayNotOursBreakerTrips: Counter;
  readonly forwardedToConfirmation: Counter;
  /** Notifications carrying a value only the read forms list (see notifications/outsideFormat). */
  readonly notificationsOutsideFormat: Counter<'resource' | 'field' | 'value'>;
  /** Webhooks about unknown ids the gateway disowned in a row (see worker/notOursRun.ts). */
  readonly unknownWebhooksNotOursInARow: Gauge;
  readonly reconcileRuns: Counter<'status'>;
  readonly reconcileRows: Counter<'result'>;
  readonly reconcileDiscrepancies: Counter;
  readonly crossChannelDisagreements: Counter;
  /** Signed moves back into a status the record already had, applied without a gateway read. */
  readonly cycleReplaysUnconfirmed: Counter;
  readonly workerFailures: Counter<'final'>;
  readonly spooled: Counter;
  readonly transitionsDropped: Counter;
  /** Bytes stored from unauthenticated requests (rejected) and quarantined webhooks. */
  readonly unauthenticatedKeptBytes: Counter<'kind'>;
  /** Rejections not stored at all: the byte budget was spent. */
  readonly unauthenticatedSkippedRows: Counter<'kind'>;
  /** Bytes not stored: whole skipped rows, and the bodies' tails past their kept head. */
  readonly unauthenticatedSkippedBytes: Counter<'kind'>;
  /** Call on every accepted notification: feeds the silence detector. */
  markAccepted(): void;
  /**
   * Connects the scrape-time gauges to this process's Postgres and queue; each source is read
   * at most once per `cacheMs` however often /metrics is scraped.
   */
  setSources(sources: MetricSources, cacheMs: number): void;
}

export function createMetrics(
  options: {
    defaultMetrics?: boolean;
    /** Only an ingress knows when it last accepted something: other roles leave it out. */
    silenceDetector?: boolean;
  } = {},
): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) {
    collectDefaultMetrics({ register: registry, prefix: 'paymirror_' });
  }
  const registers = [registry];
  let sources: MetricSources = {};
  const sourceReads = new Counter({
    name: 'paymirror_metric_source_reads_total',
    help: 'Reads of Postgres and Redis for scrape-time gauges, by source (at most one per METRICS_CACHE_SECONDS each)',
    labelNames: ['source'],
    registers,
  });
  const startedAt = Date.now();
  let lastAcceptedAt: number | null = null;

  if (options.silenceDetector ?? true) {
    new Gauge({
      name: 'paymirror_seconds_since_last_accepted',
      help: 'Seconds since this ingress last accepted a notification (since start when none yet): the silence detector',
      registers,
      collect() {
        this.set((Date.now() - (lastAcceptedAt ?? startedAt)) / 1000);
      },
    });
  }
  new Gauge({
    name: 'paymirror_spool_pending',
    help: 'Deliveries fsynced in the local spool while Postgres was down, not yet in the inbox',
    registers,
    async collect() {
      const pending = await quietly(sources.spoolPending);
      if (pending !== null) this.set(pending);
    },
  });
  new Gauge({
    name: 'paymirror_inbox_rows',
    help: 'Inbox rows not processed, by state (pending, quarantined, failed): failed and quarantined rows need someone',
    labelNames: ['state'],
    registers,
    async collect() {
      const counts = await quietly(sources.inboxCounts);
      if (counts === null) return;
      for (const state of ['pending', 'quarantined', 'failed'])
        this.set({ state }, counts[state] ?? 0);
    },
  });
  new Gauge({
    name: 'paymirror_inbox_oldest_pending_age_seconds',
    help: 'Age of the oldest inbox row still pending (0 when none)',
    registers,
    async collect() {
      const age = await quietly(sources.oldestPendingAgeSeconds);
      if (age !== null) this.set(age);
    },
  });
  new Gauge({
    name: 'paymirror_queue_jobs',
    help: 'Jobs in each queue (notifications: the signed lane; confirmations: webhooks about known records, waiting on the gateway; confirmations-unknown: webhooks about unknown ids, within their part of the gateway budget), by state',
    labelNames: ['queue', 'state'],
    registers,
    async collect() {
      for (const [queue, counts] of Object.entries((await quietly(sources.queueCounts)) ?? {})) {
        for (const [state, count] of Object.entries(counts)) this.set({ queue, state }, count);
      }
    },
  });
  new Gauge({
    name: 'paymirror_cashout_attempts_unresolved',
    help: 'Cashouts sent whose outcome is unknown (they may have paid: check, then paymirror cashouts resolve), and ones pending for over 5 minutes (a CLI killed mid-request)',
    labelNames: ['outcome'],
    registers,
    async collect() {
      const counts = await quietly(sources.cashoutsUnresolved);
      if (counts === null) return;
      for (const outcome of ['unknown', 'pending']) this.set({ outcome }, counts[outcome] ?? 0);
    },
  });
  new Gauge({
    name: 'paymirror_flagged_records',
    help: 'Sales and withdrawals whose final status (set by a signed postback or a confirmed webhook) the gateway reads kept contradicting: an operator decides (paymirror report flagged)',
    registers,
    async collect() {
      const counts = await quietly(sources.recordsNeedingAttention);
      if (counts !== null) this.set(counts.flagged);
    },
  });
  new Gauge({
    name: 'paymirror_denied_records',
    help: 'Sales and withdrawals the gateway denied (404 or 403 in shape B, twice): out of every finance view (paymirror report denied)',
    registers,
    async collect() {
      const counts = await quietly(sources.recordsNeedingAttention);
      if (counts !== null) this.set(counts.denied);
    },
  });
  new Gauge({
    name: 'paymirror_queue_oldest_waiting_age_seconds',
    help: 'How long the oldest waiting job of each queue has waited (0 when none)',
    labelNames: ['queue'],
    registers,
    async collect() {
      const ages = (await quietly(sources.queueOldestAgeSeconds)) ?? {};
      for (const [queue, age] of Object.entries(ages)) this.set({ queue }, age);
    },
  });

  return {
    registry,
    deliveries: new Counter({
      name: 'paymirror_deliveries_total',
      help: 'Notification deliveries, by channel and outcome (accepted, duplicate, quarantined, rejected with its reason, unavailable)',
      labelNames: ['channel', 'outcome', 'reason'],
      registers,
    }),
    workerOutcomes: new Counter({
      name: 'paymirror_worker_outcomes_total',
      help: 'Notifications the worker finished, by resource and outcome (applied, noop, stale, invalid, forged, quarantined)',
      labelNames: ['resource', 'outcome'],
      registers,
    }),
    acceptToApplied: new Histogram({
      name: 'paymirror_accept_to_applied_seconds',
      help: 'From the inbox row being stored to the worker finishing it',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    }),
    sweeperRequeued: new Counter({
      name: 'paymirror_sweeper_requeued_total',
      help: 'Pending inbox rows the sweeper put back on the queue',
      registers,
    }),
    gatewayCalls: new Counter({
      name: 'paymirror_gateway_calls_total',
      help: 'HTTP attempts to the gateway API, by endpoint and status (or network, timeout)',
      labelNames: ['endpoint', 'status'],
      registers,
    }),
    gatewayIndeterminate: new Counter({
      name: 'paymirror_gateway_indeterminate_answers_total',
      help: 'Gateway answers that neither give the record nor say it is not ours (401, 403 shape C, a 404 without shape B, …): retried, never taken as a forgery',
      labelNames: ['endpoint', 'status'],
      registers,
    }),
    gatewayBudgetTaken: new Counter({
      name: 'paymirror_gateway_budget_taken_total',
      help: 'Requests this process sent under the gateway budget (GATEWAY_MAX_RPS, shared by every process of the account): sum over processes for the budget used',
      registers,
    }),
    gatewayBaseUrlUnchecked: new Gauge({
      name: 'paymirror_gateway_base_url_unchecked',
      help: '1 while the base URL check (GET /api/transactions/{not a number} must answer 400) has not passed in this process: no answer is read as not ours meanwhile',
      registers,
    }),
    gatewayNotOursPaused: new Gauge({
      name: 'paymirror_gateway_not_ours_paused',
      help: '1 while the breaker holds back the "not ours" classification in this process (too many 404/403 shape B answers within a minute): such answers are retried',
      registers,
    }),
    gatewayNotOursBreakerTrips: new Counter({
      name: 'paymirror_gateway_not_ours_breaker_trips_total',
      help: 'Times the "not ours" breaker tripped (GATEWAY_NOT_OURS_BREAKER_LIMIT answers within GATEWAY_NOT_OURS_BREAKER_WINDOW_SECONDS)',
      registers,
    }),
    notificationsOutsideFormat: new Counter({
      name: 'paymirror_notifications_outside_format_total',
      help: 'Notifications applied with a value their documented format does not list, only the read form (a withdrawal status FAILED, a transaction paymentMethod TRANSFER)',
      labelNames: ['resource', 'field', 'value'],
      registers,
    }),
    forwardedToConfirmation: new Counter({
      name: 'paymirror_forwarded_to_confirmation_total',
      help: 'Inbox rows the signed lane handed to the confirmation lane (they need a gateway read first)',
      registers,
    }),
    cycleReplaysUnconfirmed: new Counter({
      name: 'paymirror_cycle_replays_unconfirmed_total',
      help: 'Signed postbacks that moved a sale back into a status its history already held (PAGO after MED, MED again after PAGO), applied without a gateway read because no gateway keys are configured: each may be a captured postback replayed. Configure GATEWAY_PUBLIC_KEY and GATEWAY_PRIVATE_KEY to have them read first',
      registers,
    }),
    unknownWebhooksNotOursInARow: new Gauge({
      name: 'paymirror_unknown_webhooks_not_ours_in_a_row',
      help: 'Webhooks about ids the mirror did not know that the gateway answered not ours (404/403 shape B), in a row, in this worker; one it confirms resets it. A long run: the webhook URL leaked, rotate WEBHOOK_TOKENS',
      registers,
    }),
    reconcileRuns: new Counter({
      name: 'paymirror_reconcile_runs_total',
      help: 'Reconciliation passes, by final status (succeeded, partial, failed)',
      labelNames: ['status'],
      registers,
    }),
    reconcileRows: new Counter({
      name: 'paymirror_reconcile_rows_total',
      help: 'Rows checked by reconciliation passes, by result (unchanged, inserted, corrected, not_found, error)',
      labelNames: ['result'],
      registers,
    }),
    reconcileDiscrepancies: new Counter({
      name: 'paymirror_reconcile_discrepancies_total',
      help: 'Differences between the mirror and the gateway recorded by reconciliation passes',
      registers,
    }),
    crossChannelDisagreements: new Counter({
      name: 'paymirror_cross_channel_disagreements_total',
      help: 'Sale events whose postback and webhook claimed different amounts (recorded as discrepancies)',
      registers,
    }),
    workerFailures: new Counter({
      name: 'paymirror_worker_failures_total',
      help: 'Failed attempts to apply a notification; final="true" when the row was marked failed',
      labelNames: ['final'],
      registers,
    }),
    transitionsDropped: new Counter({
      name: 'paymirror_transitions_dropped_total',
      help: 'Jobs on the transitions queue that matched no status_history row (injected): not posted',
      registers,
    }),
    unauthenticatedKeptBytes: new Counter({
      name: 'paymirror_unauthenticated_kept_bytes_total',
      help: 'Bytes stored for rejected deliveries and quarantined webhooks, by kind (rejected, quarantined): bounded by UNAUTHENTICATED_BYTES_PER_MINUTE',
      labelNames: ['kind'],
      registers,
    }),
    unauthenticatedSkippedRows: new Counter({
      name: 'paymirror_unauthenticated_skipped_rows_total',
      help: 'Rejected deliveries not stored because UNAUTHENTICATED_BYTES_PER_MINUTE was spent (counted and answered as usual)',
      labelNames: ['kind'],
      registers,
    }),
    unauthenticatedSkippedBytes: new Counter({
      name: 'paymirror_unauthenticated_skipped_bytes_total',
      help: 'Bytes of rejected deliveries and quarantined webhooks not stored: skipped rows, and bodies past their first 1 KiB',
      labelNames: ['kind'],
      registers,
    }),
    spooled: new Counter({
      name: 'paymirror_spooled_deliveries_total',
      help: 'Deliveries written to the local spool because Postgres could not be reached',
      registers,
    }),
    markAccepted() {
      lastAcceptedAt = Date.now();
    },
    setSources(next, cacheMs) {
      sources = Object.fromEntries(
        Object.entries(next).map(([name, read]) => [
          name,
          cachedSource(read as () => Promise<unknown>, cacheMs, () =>
            sourceReads.inc({ source: name }),
          ),
        ]),
      ) as MetricSources;
    },
  };
}

/**
 * A scrape-time source that fails (Postgres or Redis down) leaves its gauge out of this scrape
 * rather than failing /metrics: the outage is when the other metrics matter most.
 */
async function quietly<T>(source: (() => Promise<T>) | undefined): Promise<T | null> {
  if (!source) return null;
  try {
    return await source();
  } catch {
    return null;
  }
}
