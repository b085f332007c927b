import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideGatewayRead, saleMachineFor } from '../../src/domain/observationOrder.js';
import { isFinalSaleStatus, PAYMENT_METHODS, SALE_STATUSES } from '../../src/domain/saleMachine.js';

const at = (ms: number) => new Date(Date.UTC(2026, 10, 20, 12) + ms);

// Any read, begun at any time relative to the mirror's observation and last read (clock skew
// and lagging answers included): a final status a signed postback or a confirmed webhook set
// is never left because of a read.
describe('decideGatewayRead and an authentic final status', () => {
  it('never moves out of it, whatever the read says and whenever it began', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PAYMENT_METHODS),
        fc.constantFrom(...SALE_STATUSES.filter(isFinalSaleStatus)),
        fc.constantFrom(...SALE_STATUSES),
        fc.constantFrom('signed', 'confirmed'),
        fc.integer({ min: -60_000, max: 60_000 }),
        fc.option(fc.integer({ min: -60_000, max: 60_000 })),
        (method, final, answered, setBy, readOffset, lastRead) => {
          const decision = decideGatewayRead(
            {
              status: final,
              statusObservedAt: at(0),
              gatewayReadAt: lastRead === null ? null : at(lastRead),
              statusSetBy: setBy,
            },
            { status: answered, readAt: at(readOffset) },
            saleMachineFor(method),
          );
          if (decision.kind === 'write') expect(decision.move).toBeNull();
          if (answered !== final) expect(decision.kind).not.toBe('write');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a final status a read set is still corrected by a newer read', () => {
    const decision = decideGatewayRead(
      { status: 'CANCELADO', statusObservedAt: at(0), gatewayReadAt: at(0), statusSetBy: 'read' },
      { status: 'PAGO', readAt: at(1000) },
      saleMachineFor('PIX'),
    );
    expect(decision).toEqual({ kind: 'write', move: { from: 'CANCELADO', to: 'PAGO' } });
  });
});
