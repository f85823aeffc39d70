import { pino } from 'pino';
import { installTemporalRuntime } from '../../worker/temporal-runtime.ts';
import { testLogLevel } from './test-config.ts';

// The Temporal SDK's runtime, which logs every worker's workflow and activity lines, is one per process, and test
// files share processes (vitest.config.ts, isolate: false). So it is installed once, here, logging from `info`: the
// lines at the run's log level (TEST_LOG_LEVEL) go to stdout, and every line to the files listening at the time (a
// test that reads what the worker logged).
const listeners = new Set<(line: string) => void>();
const shownFrom = pino.levels.values[testLogLevel()] ?? Number.POSITIVE_INFINITY;

/** Installs the runtime for this process's workers, unless a file before this one in the process did. */
export function installTestTemporalRuntime(): void {
  installTemporalRuntime(
    pino(
      { level: 'info', name: 'test' },
      {
        write(line: string) {
          for (const listener of listeners) listener(line);
          if (levelOf(line) >= shownFrom) process.stdout.write(line);
        },
      },
    ),
  );
}

/** Hands `listener` every line the workers of this process log, until the returned function is called. */
export function listenToTemporalLog(listener: (line: string) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function levelOf(line: string): number {
  return Number(/"level":(\d+)/.exec(line)?.[1] ?? 0);
}
