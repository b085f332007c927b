/**
 * Fault injection. Each fault is a probability from 0 to 1, off (0) by default. Decisions
 * draw from the injected random source, and only for faults strictly between 0 and 1, so
 * a seeded source gives the same decisions for the same sequence of events.
 *
 *   duplicate      a notification is sent twice
 *   reorder        a notification is held and sent after the next one
 *   delay          a notification waits delayMinMs..delayMaxMs before its first attempt
 *   drop           a notification is never sent (logged as dropped)
 *   badSignature   a postback is signed with a wrong key
 *   internalError  a public API call answers 500 (shape B)
 */
import { z } from 'zod';

const probability = z.number().min(0).max(1);
const delayMs = z.number().int().min(0).max(600_000);

const faultsShape = z.object({
  duplicate: probability,
  reorder: probability,
  delay: probability,
  delayMinMs: delayMs,
  delayMaxMs: delayMs,
  drop: probability,
  badSignature: probability,
  internalError: probability,
});

export type Faults = z.infer<typeof faultsShape>;
type FaultName = Exclude<keyof Faults, 'delayMinMs' | 'delayMaxMs'>;

export const faultsPatchSchema = faultsShape.partial().strict();

export const NO_FAULTS: Faults = {
  duplicate: 0,
  reorder: 0,
  delay: 0,
  delayMinMs: 100,
  delayMaxMs: 1000,
  drop: 0,
  badSignature: 0,
  internalError: 0,
};

export class FaultsError extends Error {
  override readonly name = 'FaultsError';
}

function mergeFaults(current: Faults, patch: Partial<Faults>): Faults {
  const merged = { ...current, ...patch };
  if (merged.delayMinMs > merged.delayMaxMs) {
    throw new FaultsError(
      `delayMinMs (${merged.delayMinMs}) exceeds delayMaxMs (${merged.delayMaxMs})`,
    );
  }
  return merged;
}

export interface FaultInjector {
  current(): Faults;
  set(patch: Partial<Faults>): Faults;
  /** Whether the named fault strikes now. */
  strikes(fault: FaultName): boolean;
  /** A delay within the configured range. */
  delayMs(): number;
}

export function createFaultInjector(initial: Partial<Faults>, random: () => number): FaultInjector {
  let faults = mergeFaults(NO_FAULTS, initial);
  return {
    current: () => faults,
    set(patch) {
      faults = mergeFaults(faults, patch);
      return faults;
    },
    strikes(fault) {
      const chance = faults[fault];
      if (chance <= 0) return false;
      if (chance >= 1) return true;
      return random() < chance;
    },
    delayMs() {
      const span = faults.delayMaxMs - faults.delayMinMs;
      return span === 0 ? faults.delayMinMs : faults.delayMinMs + Math.floor(random() * (span + 1));
    },
  };
}
