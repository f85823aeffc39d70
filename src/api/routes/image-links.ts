import { Router } from 'express';
import { AppError } from '../../common/errors/app-error.ts';
import type { Deps } from '../../domain/deps.ts';
import { rateLimited } from '../middleware/rate-limit.ts';
import type { RateLimiter } from '../rate-limits/rate-limiter.ts';
import { recentImageRedirects } from './recent-image-redirects.ts';

// The signed storage link a lasting link redirects to lives an hour, and the redirect is cached for 5 minutes: a
// cached redirect never points at an expired link, and a note read by many asks us once per cache per 5 minutes.
const redirectLinkSeconds = 3600;
const redirectCacheSeconds = 300;
// A link read by many (a popular note) costs one storage read per replica per 5 minutes, not one per uncached hit;
// 10,000 entries are a few MB at most.
const rememberedRedirects = 10_000;

/**
 * The lasting image links a Nostr note carries (`GET /images/{token}`, lasting-image-links.ts): public, outside
 * `/api/v1` and its API keys, as anyone reading the note fetches them. A valid token answers a redirect to a freshly
 * signed link to the stored image, so the route works with either storage driver and in any replica; one whose image
 * is gone (its post deleted) answers 404. So does a token we did not sign, which also counts against the client
 * address's failed-authentication budget, as a refused API key does (past the budget: 429), since guessing tokens is
 * guessing a signature. A redirect answered lately is answered again from memory (recent-image-redirects.ts).
 */
export function imageLinkRoutes(deps: Deps, limiter: RateLimiter): Router {
  const router = Router();
  const recent = recentImageRedirects({ maxEntries: rememberedRedirects, lifetimeMs: redirectCacheSeconds * 1000 });
  router.get('/images/:token', async (req, res) => {
    const key = deps.imageLinks.keyOf(req.params.token);
    if (!key) {
      const attempt = await limiter.authFailures.take(req.ip ?? req.socket.remoteAddress ?? 'unknown');
      if (!attempt.allowed) throw rateLimited('auth-failures', `Too many invalid image links from this address; retry in ${attempt.resetSeconds} s.`, attempt);
      throw new AppError('not-found', 'This image link is not valid.');
    }
    const remembered = recent.get(key);
    if (remembered) {
      res.set('Cache-Control', `public, max-age=${redirectCacheSeconds}`).redirect(302, remembered);
      return;
    }
    const stored = await deps.storage.get(key);
    // Only whether it is there: the bytes are served from the link redirected to.
    stored?.body.destroy();
    if (!stored) throw new AppError('not-found', 'The image of this link no longer exists.');
    const location = await deps.storage.signedUrl(key, redirectLinkSeconds);
    recent.remember(key, location);
    res.set('Cache-Control', `public, max-age=${redirectCacheSeconds}`).redirect(302, location);
  });
  return router;
}
