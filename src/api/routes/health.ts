import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { AppError } from '../../errors/app-error.ts';

/** `/health`: the process is up. `/ready`: it can serve, i.e. the database and Temporal answer. */
export function healthRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/ready', async (_req, res) => {
    const checks = {
      database: await check(() => deps.orm.em.execute('select 1')),
      // A deadline on the call itself: the client would otherwise keep retrying after we stopped waiting.
      temporal: await check(() => deps.temporal.connection.withDeadline(Date.now() + probeTimeoutMs, () => deps.temporal.workflowService.getSystemInfo({}))),
    };
    const failing = Object.entries(checks).filter(([, result]) => result !== 'ok');
    if (failing.length > 0) {
      const reasons = failing.map(([name, result]) => `${name}: ${result}`).join('; ');
      throw new AppError('service-unavailable', `Not ready: ${reasons}.`, { retryAfterSeconds: 5 });
    }
    res.json({ status: 'ready', checks });
  });

  return router;
}

const probeTimeoutMs = 3000;

async function check(probe: () => Promise<unknown>): Promise<string> {
  try {
    await withTimeout(probe(), probeTimeoutMs);
    return 'ok';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref()),
  ]);
}
