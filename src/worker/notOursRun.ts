import type { LaneResult } from './workerOutcome.js';

/** The gauge the run is shown on (prom-client's Gauge fits). */
export interface RunGauge {
  set(value: number): void;
}

/**
 * How many webhooks about ids the mirror did not know the gateway disowned in a row (404 or
 * 403 in shape B: outcome `forged`), reset by one it confirms as ours. A real new sale or
 * withdrawal ends a run at once; a long run is somebody sending made-up ids with the webhook
 * token: rotate WEBHOOK_TOKENS (docs/operating.md, "Rotating the webhook token").
 */
export function createNotOursRun(gauge: RunGauge): { observe(result: LaneResult): void } {
  let run = 0;
  gauge.set(0);
  return {
    observe(result) {
      if (result.kind !== 'done') return;
      if (result.outcome === 'forged') run += 1;
      else if (result.confirmed) run = 0;
      else return;
      gauge.set(run);
    },
  };
}
