import { describe, expect, it } from 'vitest';
import {
  canReachSale,
  isSaleStatusAllowed,
  PAYMENT_METHODS,
  SALE_EDGES,
  SALE_STATUSES,
  type PaymentMethod,
} from '../../src/domain/saleMachine.js';
import { WITHDRAWAL_EDGES, WITHDRAWAL_STATUSES } from '../../src/domain/withdrawalMachine.js';
import { judgeSaleMove } from '../../src/sandbox/domain/saleMachine.js';
import { WITHDRAWAL_EDGES as SANDBOX_WITHDRAWAL_EDGES } from '../../src/sandbox/domain/withdrawalMachine.js';
import { paymentMethodSchema } from '../../src/sandbox/domain/vocabulary.js';

// The sandbox (the gateway's side) and paymirror keep their own machines on purpose; here they
// are held side by side, every move of every method, so that any difference is one of the
// decisions listed below and not an accident.

/** Methods paymirror knows that the sandbox does not sell: nothing to compare. */
const PAYMIRROR_ONLY_METHODS: readonly PaymentMethod[] = ['TRANSFER'];

describe('the sale machines, side by side', () => {
  const methods = PAYMENT_METHODS.filter((m) => !PAYMIRROR_ONLY_METHODS.includes(m));

  it('sell the same payment methods (paymirror also knows TRANSFER, which no sandbox sale uses)', () => {
    expect([...paymentMethodSchema.options].sort()).toEqual([...methods].sort());
  });

  it('allow exactly the same one-step moves for every method', () => {
    const differences: string[] = [];
    for (const method of methods) {
      for (const from of SALE_STATUSES) {
        for (const to of SALE_STATUSES) {
          const sandbox = judgeSaleMove(method as never, from, to).kind === 'allowed';
          // paymirror's one-step move: an edge of its table, into a status the method allows.
          const paymirror =
            SALE_EDGES[from].includes(to) &&
            isSaleStatusAllowed(method, to) &&
            canReachSale(method, from, to);
          if (sandbox !== paymirror) {
            differences.push(`${method} ${from}→${to}: sandbox ${sandbox}, paymirror ${paymirror}`);
          }
        }
      }
    }
    expect(differences).toEqual([]);
  });
});

describe('the withdrawal machines, side by side', () => {
  it('differ only by FAILED, which the sandbox reports for REJECTED instead of storing', () => {
    const paymirror = Object.fromEntries(
      WITHDRAWAL_STATUSES.filter((s) => s !== 'FAILED').map((s) => [
        s,
        WITHDRAWAL_EDGES[s].filter((t) => t !== 'FAILED'),
      ]),
    );
    expect(SANDBOX_WITHDRAWAL_EDGES).toEqual(paymirror);
    expect(WITHDRAWAL_EDGES.PENDING).toContain('FAILED');
    expect(WITHDRAWAL_EDGES.PROCESSING).toContain('FAILED');
  });
});
