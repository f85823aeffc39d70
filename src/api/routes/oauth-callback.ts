import { Router, type Request } from 'express';
import { socialPlatforms, type SocialPlatform } from '../../adapters/social/social-connector.ts';
import type { Deps } from '../../domain/deps.ts';
import { completeAuthorization } from '../../domain/social-connections/complete-authorization.ts';
import { rateLimited } from '../middleware/rate-limit.ts';
import { sendRefusalPage } from '../pages/oauth-pages.ts';
import { consentBrowserCookie, cookieOf } from './oauth-consent.ts';
import type { RateLimiter } from '../rate-limits/rate-limiter.ts';

function queryText(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === 'string' && value.length <= 4096 ? value : undefined;
}

/**
 * The public callback OAuth platforms send the person back to (`GET /oauth/{platform}/callback`): outside `/api/v1`
 * and its API keys, as the person's browser carries none. A state we did not hand out, expired, or that never went
 * through our consent page answers our own page (400) and redirects nowhere; unknown states count against the client
 * address's failed-authentication budget, as a refused API key does, since a state is a bearer secret too (past the
 * budget: 429).
 */
export function oauthCallbackRoutes(deps: Deps, limiter: RateLimiter): Router {
  const router = Router();
  router.get('/oauth/:platform/callback', async (req, res) => {
    const platform = req.params.platform as SocialPlatform;
    const answer = socialPlatforms.includes(platform)
      ? await completeAuthorization(deps, {
          platform,
          state: queryText(req, 'state'),
          code: queryText(req, 'code'),
          error: queryText(req, 'error'),
          browser: cookieOf(req, consentBrowserCookie),
        })
      : ({ kind: 'refused', reason: 'invalid-state' } as const);
    if (answer.kind === 'redirect') {
      res.set('Cache-Control', 'no-store').set('Referrer-Policy', 'no-referrer').redirect(303, answer.url);
      return;
    }
    if (answer.reason === 'invalid-state') {
      const attempt = await limiter.authFailures.take(req.ip ?? req.socket.remoteAddress ?? 'unknown');
      if (!attempt.allowed) throw rateLimited('auth-failures', `Too many unknown OAuth states from this address; retry in ${attempt.resetSeconds} s.`, attempt);
    }
    sendRefusalPage(res, answer.reason);
  });
  return router;
}
