import type { Logger } from '../../logger.ts';

/**
 * Waits for SIGTERM or SIGINT, then runs the shutdown and exits. A second signal, or a shutdown that takes over
 * 30 s, exits at once.
 */
export async function runUntilSignal(shutdown: () => Promise<void>, logger: Logger): Promise<never> {
  const signal = await new Promise<NodeJS.Signals>((resolveSignal) => {
    process.once('SIGTERM', resolveSignal);
    process.once('SIGINT', resolveSignal);
  });
  logger.info({ signal }, 'shutting down');
  const force = () => process.exit(1);
  process.once('SIGTERM', force);
  process.once('SIGINT', force);
  setTimeout(force, 30_000).unref();
  try {
    await shutdown();
    logger.info('stopped');
    process.exit(0);
  } catch (error) {
    logger.error({ err: error }, 'shutdown failed');
    process.exit(1);
  }
}
