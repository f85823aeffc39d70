import express, { Router } from 'express';
import { fileURLToPath } from 'node:url';
import { deleteApiKey } from '../../domain/api-keys/delete-api-key.ts';
import type { LastUsedTracker } from '../../domain/api-keys/last-used-tracker.ts';
import { listApiKeys } from '../../domain/api-keys/list-api-keys.ts';
import type { Deps } from '../../domain/deps.ts';
import { startVideo } from '../../domain/video/start-video.ts';
import { callerOf } from '../caller-of.ts';
import { authenticate } from '../middleware/authenticate.ts';
import { pathFormats } from '../middleware/path-formats.ts';
import { rateLimit } from '../middleware/rate-limit.ts';
import { requireScopeOf } from '../middleware/require-scope.ts';
import { notFramed } from '../middleware/security-headers.ts';
import { presentApiKey } from '../presenters/api-key.ts';
import { presentStartedVideoJob } from '../presenters/video.ts';
import type { RateLimiter } from '../rate-limits/rate-limiter.ts';

const publicDir = fileURLToPath(new URL('../dashboard/public/', import.meta.url));

// Scripts and styles only from here (no CDN: the editor works offline); images and videos also from object
// storage, whose presigned URLs may live on another origin (S3).
const contentSecurityPolicy =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: https: http:; media-src 'self' blob: https: http:; connect-src 'self'; frame-ancestors 'none'";

export type DashboardOptions = { deps: Deps; lastUsed: LastUsedTracker; rateLimiter: RateLimiter };

/**
 * The dashboard editor (`/dashboard`, static files) and its own API (`/dashboard/api`), which is not part of the
 * public contract: it starts video jobs, which API clients then poll at `GET /api/v1/video/jobs/{jobId}`, and lists
 * and revokes the workspace's API keys on every plan (Settings, API keys), so a leaked key can be revoked after a
 * downgrade too; the public `/api-keys` stays Growth-only as the specification says. Same bearer key, same
 * workspace scoping, same error body as the public API.
 */
export function dashboardRoutes({ deps, lastUsed, rateLimiter }: DashboardOptions): Router {
  const router = Router();
  router.use('/dashboard', notFramed, (_req, res, next) => {
    res.set({ 'Content-Security-Policy': contentSecurityPolicy, 'Referrer-Policy': 'no-referrer' });
    next();
  });

  router.use('/dashboard/api', authenticate(deps.orm, lastUsed, rateLimiter), rateLimit(rateLimiter));
  router.post('/dashboard/api/posts/:postId/video', requireScopeOf('startVideo'), pathFormats({ postId: 'uuid' }), async (req, res) => {
    const job = await startVideo(deps, callerOf(res), req.params.postId);
    res.status(202).location(`/api/v1/video/jobs/${job.id}`).json(presentStartedVideoJob(job));
  });

  // One page of the most a list gives: more keys than that is more than a plan allows (see plans.ts).
  router.get('/dashboard/api/api-keys', requireScopeOf('listApiKeys'), async (_req, res) => {
    const page = await listApiKeys({ ...deps, lastUsed }, callerOf(res), { page: 1, pageSize: 100 });
    res.json(page.items.map(presentApiKey));
  });
  router.delete('/dashboard/api/api-keys/:id', requireScopeOf('deleteApiKey'), pathFormats({ id: 'uuid' }), async (req, res) => {
    await deleteApiKey(deps, callerOf(res), req.params.id);
    res.status(204).end();
  });

  router.use('/dashboard', express.static(publicDir, { index: 'index.html', redirect: true, fallthrough: true }));
  return router;
}
