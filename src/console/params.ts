import { z } from 'zod';
import { daySchema } from '../reports/dayRange.js';
import type { WorkerOutcome } from '../worker/workerOutcome.js';

/**
 * What the console accepts in its URLs, validated like every other edge: ids, filters, days.
 * An empty field is the same as an absent one (that is what an untouched form sends).
 */

const blankToNull = (value: unknown) => (value === '' || value === undefined ? null : value);

const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankToNull, schema.nullable());

export const recordId = z
  .string()
  .regex(/^[0-9]{1,15}$/, 'an id is a whole number')
  .transform(Number)
  .pipe(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER));

/** Every outcome the worker writes; a new one fails to compile until it is listed. */
const OUTCOMES: Readonly<Record<WorkerOutcome, true>> = {
  applied: true,
  observed: true,
  noop: true,
  stale: true,
  invalid: true,
  forged: true,
  unconfirmed: true,
  held: true,
};
export const OUTCOME_NAMES = Object.keys(OUTCOMES) as WorkerOutcome[];
export const CHANNELS = ['postback', 'webhook'] as const;
export const STATES = ['pending', 'processed', 'quarantined', 'failed'] as const;
export const RESOURCE_TYPES = ['sale', 'withdrawal'] as const;

/** A `datetime-local` value: São Paulo wall-clock time to the minute. */
const localMinute = z
  .string()
  .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}$/, 'expected YYYY-MM-DDTHH:MM')
  .refine((value) => !Number.isNaN(Date.parse(`${value}:00Z`)), 'not a time');

export const deliveryFilterSchema = z
  .object({
    channel: optional(z.enum(CHANNELS)),
    state: optional(z.enum(STATES)),
    outcome: optional(z.enum(OUTCOME_NAMES as [WorkerOutcome, ...WorkerOutcome[]])),
    type: optional(z.enum(RESOURCE_TYPES)),
    record: optional(recordId),
    from: optional(localMinute),
    to: optional(localMinute),
    before: optional(recordId),
  })
  .refine((f) => f.from === null || f.to === null || f.from <= f.to, {
    message: '"from" is after "to"',
  });

export type DeliveryParams = z.output<typeof deliveryFilterSchema>;

export const dayRangeParams = z
  .object({ from: optional(daySchema), to: optional(daySchema) })
  .refine((range) => range.from === null || range.to === null || range.from <= range.to, {
    message: '"from" is after "to"',
  });

export const pageParams = z.object({ before: optional(recordId) });

export const discrepancyParams = z.object({
  source: optional(z.enum(['reconcile', 'cross_channel', 'confirmation', 'unconfirmed_webhook'])),
  action: optional(z.enum(['corrected', 'recorded', 'not_found'])),
  before: optional(recordId),
});

export const lookupParams = z.object({
  kind: z.enum(RESOURCE_TYPES),
  id: z.string().trim().pipe(recordId),
});

/** The URL's query as a plain object of its first values (what the schemas read). */
export function queryOf(url: URL): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) if (!(key in query)) query[key] = value;
  return query;
}
