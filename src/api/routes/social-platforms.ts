import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { listSocialPlatforms } from '../../domain/social-platforms/list-social-platforms.ts';
import { presentSocialPlatform } from '../presenters/social-platform.ts';

/** The platform catalogue: what each platform takes, for clients planning a post. */
export function socialPlatformRoutes(deps: Deps): Router {
  const router = Router();
  router.get('/social-platforms', (_req, res) => {
    res.json(listSocialPlatforms(deps).map(presentSocialPlatform));
  });
  return router;
}
