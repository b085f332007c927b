import type { Config } from '../config/config.js';
import { createGatewayClient, createRateLimiter, type GatewayClient } from '../gateway/index.js';
import type { Metrics } from '../metrics/metrics.js';

/** The process's one gateway client (one rate limit for everything), or null without keys. */
export function gatewayClientFor(config: Config, metrics: Metrics | null): GatewayClient | null {
  if (!config.gateway) return null;
  return createGatewayClient({
    baseUrl: config.gateway.baseUrl,
    publicKey: config.gateway.publicKey,
    privateKey: config.gateway.privateKey,
    timeoutMs: config.gateway.timeoutMs,
    rateLimiter: createRateLimiter(config.gateway.maxRps),
    onCall: (call) => {
      const labels = { endpoint: call.endpoint, status: String(call.status) };
      metrics?.gatewayCalls.inc(labels);
      if (call.verdict === 'indeterminate') metrics?.gatewayIndeterminate.inc(labels);
    },
  });
}
