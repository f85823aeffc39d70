import type { Worker } from '@temporalio/worker';

/**
 * Runs the process's workers until all have stopped (SIGTERM stops them all: the SDK's runtime handles it). When
 * one fails, the others are shut down too, so the process ends instead of serving half its task queues.
 */
export async function runWorkers(workers: Worker[]): Promise<void> {
  const runs = workers.map((worker) => worker.run());
  try {
    await Promise.all(runs);
  } finally {
    shutDownWorkers(workers);
    await Promise.allSettled(runs);
  }
}

/** Asks every worker still running to stop (those already stopping or stopped are left alone). */
export function shutDownWorkers(workers: Worker[]): void {
  for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
}
