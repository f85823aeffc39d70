import { randomBytes, timingSafeEqual } from 'node:crypto';
import express, { Router, type Request, type Response } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { confirmAuthorization } from '../../domain/social-connections/confirm-authorization.ts';
import { describeAuthorization } from '../../domain/social-connections/describe-authorization.ts';
import { authorizationLifetimeMs } from '../../domain/social-connections/start-authorization.ts';
import { rateLimited } from '../middleware/rate-limit.ts';
import { sendConsentPage, sendRefusalPage, type RefusalReason } from '../pages/oauth-pages.ts';
import type { RateLimiter } from '../rate-limits/rate-limiter.ts';

const csrfCookie = 'consent_csrf';
/**
 * What Continue leaves in the browser for the callback (src/api/routes/oauth-callback.ts): SameSite=Lax, since the
 * platform sends the person back by a top-level GET from its own site, which a Strict cookie would not accompany.
 */
export const consentBrowserCookie = 'oauth_consent_browser';
// A state as start-authorization.ts makes it (32 random bytes, base64url); anything else is not ours.
const stateShape = /^[\w-]{43}$/;

/**
 * Our consent page, the `authorizationUrl` a client hands to the person (`GET /oauth/consent/{state}`): outside
 * `/api/v1` and its keys like the callback. It names the workspace asking and the platform, and only its Continue
 * (`POST`, same URL) marks the authorization confirmed and sends the person on to the platform (303). The POST must
 * carry the token the page's form holds and the cookie the page set (SameSite=Strict, so another site's page cannot
 * send it): a page elsewhere that knows the link cannot press Continue for the person. Unknown states count against
 * the client address's failed-authentication budget, as at the callback.
 */
export function oauthConsentRoutes(deps: Deps, limiter: RateLimiter): Router {
  const router = Router();
  const secure = deps.publicUrl().startsWith('https:');

  const refuse = async (req: Request, res: Response, reason: RefusalReason): Promise<void> => {
    if (reason === 'invalid-state') {
      const attempt = await limiter.authFailures.take(req.ip ?? req.socket.remoteAddress ?? 'unknown');
      if (!attempt.allowed) throw rateLimited('auth-failures', `Too many unknown OAuth states from this address; retry in ${attempt.resetSeconds} s.`, attempt);
    }
    sendRefusalPage(res, reason);
  };

  router.get('/oauth/consent/:state', async (req, res) => {
    const state = req.params.state;
    const consent = stateShape.test(state) ? await describeAuthorization(deps, state) : 'invalid-state';
    if (typeof consent === 'string') return refuse(req, res, consent);
    const csrf = randomBytes(32).toString('base64url');
    res.cookie(csrfCookie, csrf, {
      httpOnly: true,
      sameSite: 'strict',
      secure,
      path: req.baseUrl + req.path,
      maxAge: consent.expiresAt.getTime() - Date.now(),
    });
    sendConsentPage(res, consent, csrf);
  });

  router.post('/oauth/consent/:state', express.urlencoded({ extended: false, limit: '1kb', parameterLimit: 4 }), async (req, res) => {
    const state = req.params.state;
    if (!stateShape.test(state)) return refuse(req, res, 'invalid-state');
    if (!sentFromOurPage(req)) return refuse(req, res, 'forged');
    const browser = randomBytes(32).toString('base64url');
    const confirmed = await confirmAuthorization(deps, state, browser);
    if (typeof confirmed === 'string') return refuse(req, res, confirmed);
    res.clearCookie(csrfCookie, { httpOnly: true, sameSite: 'strict', secure, path: req.baseUrl + req.path });
    res.cookie(consentBrowserCookie, browser, { httpOnly: true, sameSite: 'lax', secure, path: '/oauth/', maxAge: authorizationLifetimeMs });
    res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }).redirect(303, confirmed.platformUrl);
  });
  return router;
}

/**
 * Whether the POST came from the consent page in the person's browser: the form's token equals the cookie's, and the
 * browser (where it says) sent it from our own origin.
 */
function sentFromOurPage(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const sent = (req.body as Record<string, unknown> | undefined)?.csrf;
  const held = cookieOf(req, csrfCookie);
  if (typeof sent !== 'string' || held === undefined || sent.length !== held.length) return false;
  return timingSafeEqual(Buffer.from(sent), Buffer.from(held));
}

export function cookieOf(req: Request, name: string): string | undefined {
  for (const pair of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = pair.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
