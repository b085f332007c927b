import { round } from './stats.js';

/**
 * A paymirror process's garbage-collection pauses since it started, from prom-client's
 * `paymirror_nodejs_gc_duration_seconds` on its /metrics: how many full (major) and young
 * (minor) collections it ran and how long its main thread stood still for them. The CPU V8's
 * helper threads spend marking and sweeping concurrently is not in it (see the CPU split).
 */
export interface GcPauses {
  readonly major: number;
  readonly minor: number;
  readonly pause_ms: number;
}

const GC_LINE = /^paymirror_nodejs_gc_duration_seconds_(count|sum)\{kind="(\w+)"\} ([0-9.e+-]+)$/gm;

/** Null when the process does not answer /metrics (the figures are then left out). */
export async function gcPauses(url: string): Promise<GcPauses | null> {
  let text: string;
  try {
    const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) });
    if (!response.ok) return null;
    text = await response.text();
  } catch {
    return null;
  }
  let major = 0;
  let minor = 0;
  let seconds = 0;
  for (const [, field, kind, value] of text.matchAll(GC_LINE)) {
    const number = Number(value);
    if (field === 'sum') seconds += number;
    else if (kind === 'major') major += number;
    else if (kind === 'minor') minor += number;
  }
  return { major, minor, pause_ms: round(seconds * 1000, 1) };
}
