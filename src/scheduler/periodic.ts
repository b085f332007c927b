import type { Logger } from '../log/logger.js';

export interface PeriodicTask {
  stop(): Promise<void>;
}

/**
 * Runs `task` now and then `intervalMs` after each run ends (never two at once). A run that
 * reports a full batch (`again`) is followed at once. Failures are logged and retried.
 */
export function runPeriodically(
  name: string,
  task: () => Promise<{ again: boolean }>,
  intervalMs: number,
  logger: Logger,
): PeriodicTask {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = task()
      .catch((error: unknown) => {
        logger.warn({ err: error, task: name }, `${name} failed; will try again`);
        return { again: false };
      })
      .then(({ again }) => {
        if (!stopped) timer = setTimeout(tick, again ? 0 : intervalMs);
      });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
