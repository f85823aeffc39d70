import { createHash } from 'node:crypto';
import { OAuthAuthorization } from '../../adapters/database/entities/oauth-authorization.ts';
import { oauthAppOf } from '../../adapters/social/platform-module.ts';
import type { Deps } from '../deps.ts';
import { callbackUrlOf, stateHashOf } from './start-authorization.ts';

/**
 * The person pressed Continue on our consent page: the authorization is marked confirmed (the callback completes no
 * other) and the platform's authorization URL is made, with the PKCE S256 challenge and our callback. Null when the
 * state is not ours, already used, expired, or its platform's app is no longer configured: the page says so and
 * sends nobody anywhere.
 */
export async function confirmAuthorization(deps: Deps, state: string): Promise<string | null> {
  const em = deps.orm.em.fork();
  const authorization = await em.findOne(OAuthAuthorization, { stateHash: stateHashOf(state), expiresAt: { $gt: new Date() } });
  const setup = authorization ? deps.oauth[authorization.platform] : undefined;
  const app = authorization && setup ? oauthAppOf(setup, authorization) : null;
  if (!authorization || !app?.client) return null;
  // Pressing Continue again (the back button) keeps the first confirmation: the link is the same either way.
  authorization.confirmedAt ??= new Date();
  await em.flush();
  const codeChallenge = createHash('sha256').update(deps.secrets.open(authorization.codeVerifierSealed)).digest('base64url');
  return app.platform.authorizationUrl({ client: app.client, callbackUrl: callbackUrlOf(deps, authorization.platform), state, codeChallenge });
}
