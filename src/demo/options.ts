/**
 * The demo's options, validated once (the CLI hands its flags over as strings).
 */
import { z } from 'zod';

const wholeNumber = (max: number) =>
  z.preprocess(
    (value) => (typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value),
    z
      .number('expected a whole number')
      .int('expected a whole number')
      .min(0, 'expected a whole number')
      .max(max, `at most ${max}`),
  );

export const demoOptionsSchema = z.object({
  sales: wholeNumber(5_000).default(200),
  withdrawals: wholeNumber(100).default(10),
  seed: wholeNumber(0xffff_ffff).default(42),
  faults: z.boolean().default(true),
});

/** Switched on unless --no-faults: duplicates, reordering and drops (src/sandbox/README.md). */
export const DEMO_FAULTS = { duplicate: 0.15, reorder: 0.15, drop: 0.1 } as const;
