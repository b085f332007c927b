import { ConfigError, type Config } from '../config/config.js';
import { createNotOursGate, type NotOursGate } from '../gateway/notOursGate.js';
import type { GatewayClient } from '../gateway/index.js';
import type { Logger } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { runPeriodically, type PeriodicTask } from '../scheduler/periodic.js';

/**
 * The base URL check and the "not ours" breaker of one process (docs/reconciliation.md, "The
 * gateway's base URL"): the gate every gateway client of the process consults, what /readyz
 * says of it, and the background re-check while it has not passed.
 */
export interface GatewayBaseUrlGuard {
  readonly gate: NotOursGate;
  /** For /readyz: 'ok', or why a 404/403 shape B is not read as "not ours" now. */
  describe(): string;
  /** Checks now, then again in the background while the check has not passed. */
  start(client: GatewayClient): Promise<void>;
  stop(): Promise<void>;
}

/** How long `start` waits for the first check's answer before going on without it. */
const START_CHECK_WAIT_MS = 5000;

export function createGatewayBaseUrlGuard(
  gateway: NonNullable<Config['gateway']>,
  metrics: Metrics,
  logger: Logger,
): GatewayBaseUrlGuard {
  let lastProblem = 'not checked yet';
  const gate = createNotOursGate(gateway.notOursBreaker, {
    onTrip: (count) => {
      metrics.gatewayNotOursBreakerTrips.inc();
      metrics.gatewayBaseUrlUnchecked.set(1);
      metrics.gatewayNotOursPaused.set(1);
      lastProblem = 'checking again after the breaker tripped';
      logger.error(
        {
          count,
          windowMs: gateway.notOursBreaker.windowMs,
          pauseMs: gateway.notOursBreaker.pauseMs,
        },
        'too many "not ours" answers from the gateway at once: that classification is paused ' +
          '(such answers are retried) and GATEWAY_BASE_URL is checked again',
      );
    },
  });
  metrics.gatewayBaseUrlUnchecked.set(1);
  let recheck: PeriodicTask | null = null;

  async function check(client: GatewayClient): Promise<'ok' | 'wrong' | 'unchecked'> {
    const verdict = await client.checkBaseUrl();
    if (verdict.kind === 'ok') {
      if (gate.status().baseUrl !== 'ok') logger.info('gateway base URL checked');
      gate.setBaseUrl('ok');
      metrics.gatewayBaseUrlUnchecked.set(0);
      return 'ok';
    }
    lastProblem = verdict.detail;
    return verdict.kind;
  }

  return {
    gate,
    describe() {
      const { baseUrl, pausedUntil } = gate.status();
      metrics.gatewayNotOursPaused.set(pausedUntil ? 1 : 0);
      if (pausedUntil) return `not-ours paused until ${pausedUntil.toISOString()}`;
      return baseUrl === 'ok' ? 'ok' : `unchecked: ${lastProblem}`;
    },
    async start(client) {
      // A gateway that holds the connection must not hold the start: past a few seconds the
      // answer is awaited in the background like any re-check.
      const checking = check(client).catch((error: unknown) => {
        lastProblem = error instanceof Error ? error.message : String(error);
        return 'unchecked' as const;
      });
      const first = await Promise.race([
        checking,
        new Promise<'unchecked'>((resolve) => {
          setTimeout(() => resolve('unchecked'), START_CHECK_WAIT_MS).unref();
        }),
      ]);
      if (first === 'wrong') {
        throw new ConfigError([
          `GATEWAY_BASE_URL: ${lastProblem}: no such route there, the base path is wrong ` +
            `(GET /api/transactions/{not a number} must answer 400)`,
        ]);
      }
      if (first === 'unchecked') {
        logger.warn(
          { problem: lastProblem },
          'gateway base URL not checked yet: no answer is read as "not ours" until it is; trying again in the background',
        );
      }
      recheck = runPeriodically(
        'gateway base URL check',
        async () => {
          metrics.gatewayNotOursPaused.set(gate.status().pausedUntil ? 1 : 0);
          if (gate.status().baseUrl === 'ok') return { again: false };
          if ((await check(client)) === 'wrong') {
            logger.error(
              { problem: lastProblem },
              'GATEWAY_BASE_URL answers 404 for the transaction read: the base path is wrong',
            );
          }
          return { again: false };
        },
        gateway.baseUrlRecheckMs,
        logger,
      );
    },
    async stop() {
      await recheck?.stop();
    },
  };
}
