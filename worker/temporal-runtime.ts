import { makeTelemetryFilterString, Runtime, type LogLevel, type LogMetadata, type Logger as TemporalLogger } from '@temporalio/worker';
import type { Logger } from '../src/logger.ts';
import { hostAndPort } from '../src/adapters/metrics/metrics-server.ts';

let installed = false;

/**
 * Routes the Temporal SDK's own logs (worker state, activity and workflow logs) into our pino logger, so one process
 * writes one log format at one level, and, given `metrics`, serves the SDK's metrics (task slots, schedule-to-start
 * latencies, failures) to Prometheus at `http://<host>:<port>/metrics` from its native exporter, which binds that port
 * itself. Must run before the first worker is created; the runtime is one per process, so later calls do nothing.
 */
export function installTemporalRuntime(logger: Logger, metrics?: { host: string; port: number }): void {
  if (installed) return;
  installed = true;
  Runtime.install({
    logger: toTemporalLogger(logger.child({ component: 'temporal' })),
    telemetryOptions: {
      // The SDK's native core logs (connection retries and the like) go the same way.
      logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN' }) },
      // Prometheus' conventions: counters end in _total, durations in seconds with the unit in the name.
      ...(metrics && {
        metrics: {
          prometheus: {
            bindAddress: hostAndPort(metrics.host, metrics.port),
            countersTotalSuffix: true,
            unitSuffix: true,
            useSecondsForDurations: true,
          },
        },
      }),
    },
  });
}

const levels: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

function toTemporalLogger(logger: Logger): TemporalLogger {
  const at = (level: LogLevel) => (message: string, meta?: LogMetadata) => logger[levels[level]](meta ?? {}, message);
  return {
    log: (level, message, meta) => at(level)(message, meta),
    trace: at('TRACE'),
    debug: at('DEBUG'),
    info: at('INFO'),
    warn: at('WARN'),
    error: at('ERROR'),
  };
}
