import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { listUsageActivity } from '../../domain/usage/list-usage-activity.ts';
import { usageTypeLabels } from '../../domain/usage/usage-types.ts';
import { callerOf } from '../caller-of.ts';
import { pageRequestOf, sendPage } from '../paging.ts';
import type { Schemas } from '../schemas.ts';

export function usageRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/usage/activity', async (req, res) => {
    const page = await listUsageActivity(deps, callerOf(res), pageRequestOf(req));
    const body: Schemas['UsageActivity'] = {
      activity: page.items.map((item) => ({
        id: item.id,
        type: item.type,
        typeLabel: usageTypeLabels[item.type],
        description: item.description,
        createdAt: item.createdAt.toISOString(),
      })),
    };
    sendPage(req, res, page, body);
  });

  return router;
}
