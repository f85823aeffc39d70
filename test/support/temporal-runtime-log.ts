import { pino } from 'pino';
import { installTemporalRuntime } from '../../worker/temporal-runtime.ts';
import { testLogLevel } from './test-config.ts';

// The Temporal SDK's runtime, which logs every worker's workflow and activity lines, is one per process, and test
// files share processes (vitest.config.ts, isolate: false). Its options are set once per process, before the first
// file (test/setup/temporal-runtime.ts); the SDK rebuilds the runtime from them whenever a file needs it again. It
// logs from `info`, or lower when TEST_LOG_LEVEL is lower: lines at TEST_LOG_LEVEL or above go to stdout, and every
// line to the files listening at the time (a test that reads what the worker logged).
const listeners = new Set<(line: string) => void>();
const shownFrom = pino.levels.values[testLogLevel()] ?? Number.POSITIVE_INFINITY;
const info = pino.levels.values.info!;

/** Installs the runtime for this process's workers, unless it already is. */
export function installTestTemporalRuntime(): void {
  installTemporalRuntime(
    pino(
      { level: shownFrom < info ? testLogLevel() : 'info', name: 'test' },
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
