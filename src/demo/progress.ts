/**
 * Progress on stderr: one line rewritten in place on a terminal, else a plain line when a
 * phase ends, so that logs and CI output stay short.
 */
export interface Progress {
  /** `done` of `total` in the phase called `label`. */
  step(label: string, done: number, total: number): void;
  /** A line of its own. */
  note(line: string): void;
}

export const NO_PROGRESS: Progress = { step: () => undefined, note: () => undefined };

export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

export function createProgress(stream: ProgressStream): Progress {
  const tty = stream.isTTY === true;
  let open = false;
  let lastDrawn = 0;
  return {
    step(label, done, total) {
      const finished = done >= total;
      if (!tty) {
        if (finished) stream.write(`${label}: ${done}/${total}\n`);
        return;
      }
      // At most ~20 redraws a second, and always the last one.
      const now = Date.now();
      if (!finished && now - lastDrawn < 50) return;
      lastDrawn = now;
      stream.write(
        `\r\x1b[2K${label}: ${bar(done, total)} ${done}/${total}${finished ? '\n' : ''}`,
      );
      open = !finished;
    },
    note(line) {
      if (tty && open) stream.write('\n');
      open = false;
      stream.write(`${line}\n`);
    },
  };
}

function bar(done: number, total: number): string {
  const width = 24;
  const filled = total === 0 ? width : Math.min(width, Math.round((done / total) * width));
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}
