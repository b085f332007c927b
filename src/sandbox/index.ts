export { createSandbox, SandboxListenError } from './sandbox.js';
export type { Sandbox, SandboxState } from './sandbox.js';
export { sandboxOptionsSchema, SandboxOptionsError } from './options.js';
export type { SandboxCliOptions, SandboxLogger, SandboxOptions } from './options.js';
export { generateKeyPair, SANDBOX_KEY_PREFIX } from './keys.js';
export type { KeyPair } from './keys.js';
export { NO_FAULTS } from './delivery/faults.js';
export type { Faults } from './delivery/faults.js';
export type {
  DeliveryAttemptEntry,
  DeliveryChannel,
  DeliveryOutcome,
} from './delivery/deliveryLog.js';
export type { SaleRecord, WithdrawalRecord } from './domain/records.js';
export { SALE_FEE_RULES, CASHOUT_FEE_RULE } from './domain/fees.js';
