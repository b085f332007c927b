/** The typed gateway client (docs/gateway.md 4). Everything outside src/gateway imports this. */
export { createGatewayClient } from './client.js';
export type { GatewayCall, GatewayClientOptions, GatewayVerdict } from './options.js';
export { DEFAULT_TIMEOUT_MS } from './options.js';
export { createRateLimiter, DEFAULT_RATE_LIMIT_PER_SECOND, withinShare } from './rateLimiter.js';
export type { RateLimiter, RateLimiterOptions } from './rateLimiter.js';
export { budgetKey, createSharedRateLimiter, readSharedBudget } from './sharedRateLimiter.js';
export type { BudgetRedis, SharedRateLimiterOptions } from './sharedRateLimiter.js';
export { DEFAULT_RETRY_POLICY } from './retry.js';
export type { RetryPolicy } from './retry.js';
export * from './gatewayError.js';
export * from './types.js';
