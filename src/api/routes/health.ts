import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { AppError } from '../../common/errors/app-error.ts';
import { withTimeout } from '../../common/async/with-timeout.ts';
import { imageKeyRejected } from '../../domain/generation/image-key-standing.ts';

// A key no object ever has: reading it asks the store a real question (the bucket or directory is there and
// answers) and gets "none" back.
const storageProbeKey = 'readiness-probe/none';
const probeTimeoutMs = 3000;

/**
 * `/health`: the process is up. `/ready`: it can serve, i.e. the database, Temporal and object storage answer.
 * Both are unauthenticated, so a failing check is named but what the dependency said (addresses, hosts) only goes
 * to the log. `/ready` also names the image provider's standing (`imageProvider`: `ok`, or `key_rejected` when the
 * worker's last call was refused the configured key) without answering 503 for it: the api can serve everything but
 * new images, and a load balancer that took every replica out over the image key would stop it serving anything.
 */
export function healthRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  async function imageProviderStanding(): Promise<'ok' | 'key_rejected'> {
    if (deps.images.name === 'local') return 'ok';
    return (await withTimeout(imageKeyRejected(deps.orm.em.fork(), deps.images.name), probeTimeoutMs)) ? 'key_rejected' : 'ok';
  }

  router.get('/ready', async (req, res) => {
    const probes: Record<string, () => Promise<unknown>> = {
      database: () => deps.orm.em.execute('select 1'),
      // A deadline on the call itself: the client would otherwise keep retrying after we stopped waiting.
      temporal: () => deps.temporal.connection.withDeadline(Date.now() + probeTimeoutMs, () => deps.temporal.workflowService.getSystemInfo({})),
      storage: () => deps.storage.get(storageProbeKey),
    };
    const results = await Promise.all(
      Object.entries(probes).map(async ([name, probe]) => {
        try {
          await withTimeout(probe(), probeTimeoutMs);
          return [name, 'ok'] as const;
        } catch (error) {
          req.log.warn({ err: error, dependency: name }, 'readiness check failed');
          return [name, 'unavailable'] as const;
        }
      }),
    );
    const failing = results.filter(([, result]) => result !== 'ok').map(([name]) => name);
    if (failing.length > 0) {
      throw new AppError('service-unavailable', `Not ready: ${failing.join(', ')} not answering.`, { retryAfterSeconds: 5 });
    }
    res.json({ status: 'ready', checks: { ...Object.fromEntries(results), imageProvider: await imageProviderStanding() } });
  });

  return router;
}
