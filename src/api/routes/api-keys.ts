import { Router, type Request } from 'express';
import { createApiKey } from '../../domain/api-keys/create-api-key.ts';
import { deleteApiKey } from '../../domain/api-keys/delete-api-key.ts';
import type { LastUsedTracker } from '../../domain/api-keys/last-used-tracker.ts';
import { listApiKeys } from '../../domain/api-keys/list-api-keys.ts';
import { regenerateApiKey } from '../../domain/api-keys/regenerate-api-key.ts';
import type { Deps } from '../../domain/deps.ts';
import { callerOf } from '../caller-of.ts';
import { requestKeyOf } from '../request-key-of.ts';
import { pageRequestOf, sendPage } from '../paging.ts';
import { presentApiKey, presentCreatedApiKey, presentRegeneratedApiKey } from '../presenters/api-key.ts';
import type { Schemas } from '../schemas.ts';
import { noStore } from '../middleware/security-headers.ts';
import { requireFeature } from '../../domain/workspaces/plans.ts';

export function apiKeyRoutes(deps: Deps & { lastUsed: LastUsedTracker }): Router {
  const router = Router();
  // The specification makes every `/api-keys` operation Growth-only; the dashboard lists and revokes keys on every
  // plan (routes/dashboard.ts), which is why the gate of list and delete is here and not in their use cases.
  router.use('/api-keys', (_req, res, next) => {
    requireFeature(callerOf(res).plan, 'apiKeys');
    next();
  });

  router.get('/api-keys', async (req, res) => {
    const page = await listApiKeys(deps, callerOf(res), pageRequestOf(req));
    sendPage(req, res, page, page.items.map(presentApiKey));
  });

  router.post('/api-keys', noStore, async (req, res) => {
    const { apiKey, key } = await createApiKey(deps, callerOf(res), req.body as Schemas['CreateApiKeyRequest'], requestKeyOf(res));
    res.status(201).location(`/api/v1/api-keys/${apiKey.id}`).json(presentCreatedApiKey(apiKey, key));
  });

  router.delete('/api-keys/:id', async (req, res) => {
    await deleteApiKey(deps, callerOf(res), req.params.id);
    res.status(204).end();
  });

  router.post('/api-keys/:id/regenerate', noStore, async (req: Request<{ id: string }>, res) => {
    res.json(presentRegeneratedApiKey(await regenerateApiKey(deps, callerOf(res), req.params.id, requestKeyOf(res))));
  });

  return router;
}
