import { createHash } from 'node:crypto';
import { OAuthAuthorization } from '../../adapters/database/entities/oauth-authorization.ts';
import { oauthAppOf } from '../../adapters/social/platform-module.ts';
import type { Deps } from '../deps.ts';
import { callbackUrlOf, stateHashOf } from './start-authorization.ts';

/** How the secret a consent page's Continue gave the browser is kept: only its hash, like the state's. */
export function browserHashOf(browser: string): string {
  return createHash('sha256').update(browser).digest('hex');
}

/**
 * The person pressed Continue on our consent page: the authorization is marked confirmed in this `browser` (the secret
 * the page leaves there; the callback completes it nowhere else) and the platform's authorization URL is made, with the PKCE S256 challenge and our callback. Or why not:
 * the state is not ours, already used, or its platform's app is no longer configured (`invalid-state`), or it has
 * `expired`; the page says so and sends nobody anywhere.
 */
export async function confirmAuthorization(deps: Deps, state: string, browser: string): Promise<{ platformUrl: string } | 'invalid-state' | 'expired'> {
  const em = deps.orm.em.fork();
  const authorization = await em.findOne(OAuthAuthorization, { stateHash: stateHashOf(state) });
  if (!authorization) return 'invalid-state';
  if (authorization.expiresAt.getTime() <= Date.now()) return 'expired';
  const setup = deps.oauth[authorization.platform];
  const app = setup ? oauthAppOf(setup, authorization) : null;
  if (!app?.client) return 'invalid-state';
  // Pressing Continue again (the back button) keeps the first confirmation: the link is the same either way.
  authorization.confirmedAt ??= new Date();
  authorization.consentBrowserHash = browserHashOf(browser);
  await em.flush();
  const codeChallenge = createHash('sha256').update(deps.secrets.open(authorization.codeVerifierSealed)).digest('base64url');
  return { platformUrl: app.platform.authorizationUrl({ client: app.client, callbackUrl: callbackUrlOf(deps, authorization.platform), state, codeChallenge }) };
}
