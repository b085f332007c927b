import type { DeliveryLog } from '../delivery/deliveryLog.js';
import type { FaultInjector } from '../delivery/faults.js';
import type { SandboxLogger } from '../options.js';
import type { SandboxRuntime } from '../runtime.js';
import type { SandboxStore } from '../store.js';
import type { ApiAccount } from './guards.js';

/** Everything the HTTP layer needs, passed in by createSandbox. */
export interface HttpDeps {
  readonly store: SandboxStore;
  readonly runtime: SandboxRuntime;
  readonly account: ApiAccount;
  readonly foreignUserId: number;
  readonly faults: FaultInjector;
  readonly deliveryLog: DeliveryLog;
  readonly pendingDeliveries: () => number;
  readonly logger: SandboxLogger;
}
