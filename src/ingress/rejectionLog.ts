import type { Logger } from '../log/logger.js';

/**
 * Rejected deliveries (415, 413, 400, 401, 403) logged per source: the first in each window in
 * full, the rest counted and summed up in one line when the window ends. One noisy client
 * sending thousands of bad requests a second makes two lines a minute, not thousands.
 */
export interface RejectionLog {
  record(source: string | null, fields: { route: string; channel: string; reason: string }): void;
  /** Writes the pending summaries now (also done every window by a timer). */
  flush(): void;
  close(): void;
}

interface SourceWindow {
  startedAt: number;
  suppressed: number;
  reasons: Map<string, number>;
}

export function createRejectionLog(
  logger: Logger,
  options: { windowMs?: number; maxSources?: number; now?: () => number } = {},
): RejectionLog {
  const windowMs = options.windowMs ?? 60_000;
  const maxSources = options.maxSources ?? 10_000;
  const now = options.now ?? Date.now;
  const windows = new Map<string, SourceWindow>();

  const summarise = (source: string, window: SourceWindow) => {
    if (window.suppressed === 0) return;
    logger.warn(
      {
        source,
        rejections: window.suppressed,
        reasons: Object.fromEntries(window.reasons),
        windowSeconds: Math.round(windowMs / 1000),
      },
      'more deliveries rejected from this source (not logged one by one)',
    );
  };

  const flush = () => {
    const at = now();
    for (const [source, window] of windows) {
      if (at - window.startedAt < windowMs) continue;
      summarise(source, window);
      windows.delete(source);
    }
  };
  const timer = setInterval(flush, windowMs);
  timer.unref();

  return {
    record(source, fields) {
      const key = source ?? 'unknown';
      const at = now();
      const open = windows.get(key);
      if (open && at - open.startedAt < windowMs) {
        open.suppressed += 1;
        open.reasons.set(fields.reason, (open.reasons.get(fields.reason) ?? 0) + 1);
        return;
      }
      if (open) {
        summarise(key, open);
        windows.delete(key);
      }
      if (windows.size >= maxSources) {
        // The oldest window goes first (Map keeps insertion order); its summary is written.
        const [oldestKey, oldest] = windows.entries().next().value as [string, SourceWindow];
        summarise(oldestKey, oldest);
        windows.delete(oldestKey);
      }
      windows.set(key, { startedAt: at, suppressed: 0, reasons: new Map() });
      logger.warn({ ...fields, source }, 'delivery rejected');
    },
    flush,
    close() {
      clearInterval(timer);
      for (const [source, window] of windows) summarise(source, window);
      windows.clear();
    },
  };
}
