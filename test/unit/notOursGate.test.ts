import { describe, expect, it } from 'vitest';
import { createNotOursGate } from '../../src/gateway/notOursGate.js';

function gateAt(limit: number) {
  let now = 1_000_000;
  const trips: number[] = [];
  const gate = createNotOursGate(
    { limit, windowMs: 60_000, pauseMs: 300_000 },
    { now: () => now, onTrip: (count) => trips.push(count) },
  );
  return {
    gate,
    trips,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('the not-ours gate', () => {
  it('admits nothing until the base URL check passed', () => {
    const { gate } = gateAt(5);
    expect(gate.admit()).toBe(false);
    gate.setBaseUrl('ok');
    expect(gate.admit()).toBe(true);
  });

  it('trips on a run within the window, pauses, and asks for the check again', () => {
    const { gate, trips, advance } = gateAt(3);
    gate.setBaseUrl('ok');
    expect([gate.admit(), gate.admit()]).toEqual([true, true]);
    expect(gate.admit()).toBe(false);
    expect(trips).toEqual([3]);
    expect(gate.status()).toMatchObject({ baseUrl: 'unchecked' });
    expect(gate.status().pausedUntil).not.toBeNull();

    gate.setBaseUrl('ok');
    advance(299_000);
    expect(gate.admit()).toBe(false);
    advance(2_000);
    expect(gate.status().pausedUntil).toBeNull();
    expect(gate.admit()).toBe(true);
  });

  it('forgets answers older than the window', () => {
    const { gate, trips, advance } = gateAt(3);
    gate.setBaseUrl('ok');
    for (let i = 0; i < 10; i += 1) {
      expect(gate.admit()).toBe(true);
      advance(31_000);
    }
    expect(trips).toEqual([]);
  });
});
