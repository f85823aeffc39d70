import { makeTelemetryFilterString, Runtime, type LogLevel, type LogMetadata, type Logger as TemporalLogger } from '@temporalio/worker';
import type { Logger } from '../src/logger.ts';

let installed = false;

/**
 * Routes the Temporal SDK's own logs (worker state, activity and workflow logs) into our pino logger, so one process
 * writes one log format at one level. Must run before the first worker is created; later calls do nothing.
 */
export function installTemporalRuntime(logger: Logger): void {
  if (installed) return;
  installed = true;
  Runtime.install({
    logger: toTemporalLogger(logger.child({ component: 'temporal' })),
    // The SDK's native core logs (connection retries and the like) go the same way.
    telemetryOptions: { logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN' }) } },
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
