import type { Plan } from '../lib/plan.js';
import { measureWorker, type WorkerSummary } from './worker.js';
import { measureBareWorker, type BareWorkerSummary } from './workerBare.js';

/** A drain's summary, from its median round, with every round's rate. */
type Rounds<T> = T & { readonly rounds_applied_per_s: readonly number[] };

export interface WorkerRounds {
  readonly worker: Rounds<WorkerSummary> | null;
  readonly workerBare: Rounds<BareWorkerSummary> | null;
}

/**
 * The worker and the bare worker drain their jobs in turns, `plan.runs` rounds of each, so a
 * change in the machine's speed falls on both alike: on a shared 2-core VM one drain after
 * the other gave the bare worker 2,400 to 3,500 rows/s within an hour, and their ratio swung
 * as much. Each is reported as its median round.
 */
export async function measureWorkerRounds(
  plan: Plan,
  which: { readonly worker: boolean; readonly workerBare: boolean },
  onRound: (line: string) => void,
): Promise<WorkerRounds> {
  const workers: WorkerSummary[] = [];
  const bares: BareWorkerSummary[] = [];
  for (let round = 1; round <= plan.runs; round += 1) {
    if (which.worker) {
      const worker = await measureWorker(plan);
      onRound(`round ${round}/${plan.runs} worker: ${worker.applied_per_s} applied/s`);
      workers.push(worker);
    }
    if (which.workerBare) {
      const bare = await measureBareWorker(plan);
      onRound(`round ${round}/${plan.runs} worker_bare: ${bare.applied_per_s} applied/s`);
      bares.push(bare);
    }
  }
  return { worker: medianRound(workers), workerBare: medianRound(bares) };
}

function medianRound<T extends { readonly applied_per_s: number }>(
  runs: readonly T[],
): Rounds<T> | null {
  const sorted = [...runs].sort((a, b) => a.applied_per_s - b.applied_per_s);
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  if (!median) return null;
  return { ...median, rounds_applied_per_s: runs.map((run) => run.applied_per_s) };
}
