/**
 * The sandbox settings the control API may change while it runs.
 */
import type { CashoutBlock } from './domain/vocabulary.js';

export interface SandboxRuntime {
  webhookUrl: string | null;
  postbackSecret: string;
  /** Answer 403 (shape A with this errorType) to every cashout request. */
  cashoutBlock: CashoutBlock | null;
  /** Answer 403 (shape C, FORBIDDEN) to every sale creation. */
  salesForbidden: boolean;
}
