import { InvariantError } from '../lib/invariantError.js';

/**
 * A small seeded generator (mulberry32) so that a demo run is repeatable: the same seed
 * gives the same scenario and, fed to the sandbox, the same fault decisions.
 */
export type Random = () => number;

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** An integer from min to max, both included. */
export function intBetween(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

export function pick<T>(random: Random, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new InvariantError('pick from an empty list');
  return item;
}

/** Picks by weight; weights are positive integers. */
export function pickWeighted<T extends { readonly weight: number }>(
  random: Random,
  items: readonly T[],
): T {
  const total = items.reduce((sum, item) => sum + item.weight, 0);
  let roll = random() * total;
  for (const item of items) {
    roll -= item.weight;
    if (roll < 0) return item;
  }
  const last = items[items.length - 1];
  if (last === undefined) throw new InvariantError('pick from an empty list');
  return last;
}

export function digits(random: Random, count: number): string {
  return Array.from({ length: count }, () => String(intBetween(random, 0, 9))).join('');
}
