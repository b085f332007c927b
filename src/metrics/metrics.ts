import { Counter, Registry, collectDefaultMetrics } from 'prom-client';

/** paymirror's Prometheus metrics; one registry per process (tests make their own). */
export interface Metrics {
  readonly registry: Registry;
  readonly deliveries: Counter<'channel' | 'outcome' | 'reason'>;
  readonly workerOutcomes: Counter<'resource' | 'outcome'>;
  readonly sweeperRequeued: Counter;
  readonly gatewayCalls: Counter<'endpoint' | 'status'>;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true)
    collectDefaultMetrics({ register: registry, prefix: 'paymirror_' });
  return {
    registry,
    deliveries: new Counter({
      name: 'paymirror_deliveries_total',
      help: 'Notification deliveries received, by channel and outcome (accepted, duplicate, quarantined, rejected, unavailable)',
      labelNames: ['channel', 'outcome', 'reason'],
      registers: [registry],
    }),
    workerOutcomes: new Counter({
      name: 'paymirror_worker_outcomes_total',
      help: 'Notifications the worker finished, by resource and decision (applied, noop, stale, invalid, ...)',
      labelNames: ['resource', 'outcome'],
      registers: [registry],
    }),
    sweeperRequeued: new Counter({
      name: 'paymirror_sweeper_requeued_total',
      help: 'Pending inbox rows the sweeper put back on the queue',
      registers: [registry],
    }),
    gatewayCalls: new Counter({
      name: 'paymirror_gateway_calls_total',
      help: 'HTTP attempts to the gateway API, by endpoint and status (or network, timeout)',
      labelNames: ['endpoint', 'status'],
      registers: [registry],
    }),
  };
}
