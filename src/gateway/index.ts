/** The typed gateway client (docs/gateway.md 4). Everything outside src/gateway imports this. */
export { createGatewayClient } from './client.js';
export type { GatewayCall, GatewayClientOptions } from './options.js';
export { createRateLimiter, withinShare } from './rateLimiter.js';
export type { RateLimiter } from './rateLimiter.js';
export { budgetKey, createSharedRateLimiter, readSharedBudget } from './sharedRateLimiter.js';
export type { BudgetRedis } from './sharedRateLimiter.js';
export { DEFAULT_RETRY_POLICY } from './retry.js';
export * from './gatewayError.js';
export * from './types.js';
