import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { listUsageActivity } from '../../domain/usage/list-usage-activity.ts';
import { callerOf } from '../caller-of.ts';
import { pageRequestOf, sendPage } from '../paging.ts';
import { presentUsageActivity } from '../presenters/usage.ts';

export function usageRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/usage/activity', async (req, res) => {
    const page = await listUsageActivity(deps, callerOf(res), pageRequestOf(req));
    sendPage(req, res, page, presentUsageActivity(page.items));
  });

  return router;
}
