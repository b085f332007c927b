import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decideGatewayRead,
  isStrictlyForward,
  NEWER_READ_WRITTEN,
  saleMachineFor,
  WITHDRAWAL_MACHINE,
} from '../../src/domain/observationOrder.js';
import { SALE_STATUSES, type SaleStatus } from '../../src/domain/saleMachine.js';

const PIX = saleMachineFor('PIX');
const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 12, minute));

describe('decideGatewayRead', () => {
  it('inserts a record the mirror lacks', () => {
    expect(decideGatewayRead(null, { status: 'PAGO', readAt: at(0) }, PIX)).toEqual({
      kind: 'insert',
    });
  });

  it('a read begun before a signed refund was applied does not undo it', () => {
    const mirror = { status: 'ESTORNADO' as const, statusObservedAt: at(5), gatewayReadAt: null };
    expect(decideGatewayRead(mirror, { status: 'PAGO', readAt: at(4) }, PIX)).toEqual({
      kind: 'stale',
      reason: 'the mirror observed ESTORNADO after this read of PAGO began',
    });
  });

  it('an older read may still move a row strictly forward (the machine proves the order)', () => {
    const mirror = { status: 'PENDENTE' as const, statusObservedAt: at(5), gatewayReadAt: null };
    expect(decideGatewayRead(mirror, { status: 'PAGO', readAt: at(4) }, PIX)).toEqual({
      kind: 'write',
      move: { from: 'PENDENTE', to: 'PAGO' },
    });
  });

  it('an older read never moves a row around a cycle (PAGO ↔ MED)', () => {
    const mirror = { status: 'MED' as const, statusObservedAt: at(5), gatewayReadAt: null };
    expect(decideGatewayRead(mirror, { status: 'PAGO', readAt: at(4) }, PIX).kind).toBe('stale');
  });

  it('a read begun in the same millisecond as the mirror observed its status counts as older', () => {
    // Times are read to the millisecond: which came first cannot be told, so the read may not
    // have seen the status (a signed MED applied while the GET was in flight).
    const mirror = { status: 'MED' as const, statusObservedAt: at(5), gatewayReadAt: null };
    expect(decideGatewayRead(mirror, { status: 'PAGO', readAt: at(5) }, PIX).kind).toBe('stale');
    const pending = { ...mirror, status: 'PENDENTE' as const };
    expect(decideGatewayRead(pending, { status: 'PAGO', readAt: at(5) }, PIX).kind).toBe('write');
  });

  it('a row with no observation times (older than them) takes what the read says', () => {
    const mirror = { status: 'MED' as const, statusObservedAt: null, gatewayReadAt: null };
    expect(decideGatewayRead(mirror, { status: 'PAGO', readAt: at(0) }, PIX)).toEqual({
      kind: 'write',
      move: { from: 'MED', to: 'PAGO' },
    });
  });

  it('an answer older than the last one written changes nothing', () => {
    const mirror = { status: 'PAGO' as const, statusObservedAt: at(1), gatewayReadAt: at(6) };
    expect(decideGatewayRead(mirror, { status: 'ESTORNADO', readAt: at(5) }, PIX)).toEqual({
      kind: 'stale',
      reason: NEWER_READ_WRITTEN,
    });
    expect(NEWER_READ_WRITTEN).toBe('a newer gateway answer is already in the mirror');
  });

  it('the truth wins over anything older, even a move the machine forbids', () => {
    // The mirror holds ESTORNADO from something the gateway never confirmed.
    const mirror = { status: 'ESTORNADO' as const, statusObservedAt: at(1), gatewayReadAt: null };
    expect(decideGatewayRead(mirror, { status: 'PAGO', readAt: at(2) }, PIX)).toEqual({
      kind: 'write',
      move: { from: 'ESTORNADO', to: 'PAGO' },
    });
  });

  it("a withdrawal's REJECTED and FAILED are one status: no move", () => {
    const mirror = { status: 'REJECTED' as const, statusObservedAt: at(1), gatewayReadAt: null };
    expect(
      decideGatewayRead(mirror, { status: 'FAILED', readAt: at(2) }, WITHDRAWAL_MACHINE),
    ).toEqual({ kind: 'write', move: null });
  });

  const status = fc.constantFrom(...SALE_STATUSES.filter((s) => s !== 'EM_PROCESSAMENTO'));
  const minute = fc.integer({ min: 0, max: 59 });

  it('never moves a row out of a status observed since the read began, unless strictly forward', () => {
    fc.assert(
      fc.property(status, status, minute, minute, (from, to, observed, read) => {
        fc.pre(read <= observed);
        const mirror = {
          status: from as SaleStatus,
          statusObservedAt: at(observed),
          gatewayReadAt: null,
        };
        const decision = decideGatewayRead(
          mirror,
          { status: to as SaleStatus, readAt: at(read) },
          PIX,
        );
        if (decision.kind === 'write' && decision.move) {
          expect(isStrictlyForward(PIX, from as SaleStatus, to as SaleStatus)).toBe(true);
        }
      }),
    );
  });

  it('a read newer than everything the row holds always writes its status', () => {
    fc.assert(
      fc.property(status, status, minute, minute, (from, to, observed, read) => {
        fc.pre(read > observed);
        const mirror = {
          status: from as SaleStatus,
          statusObservedAt: at(observed),
          gatewayReadAt: at(observed),
        };
        const decision = decideGatewayRead(
          mirror,
          { status: to as SaleStatus, readAt: at(read) },
          PIX,
        );
        expect(decision).toEqual({ kind: 'write', move: from === to ? null : { from, to } });
      }),
    );
  });
});
