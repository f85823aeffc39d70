import got from 'got';
import { createHash, randomBytes } from 'node:crypto';
import type { Config } from '../../src/config.ts';
import type { SocialConnection } from '../../src/adapters/database/entities/social-connection.ts';
import type { Database } from '../../src/adapters/database/orm.ts';
import type { OAuthTokens } from '../../src/adapters/social/oauth-platform.ts';
import type { XCredentials } from '../../src/adapters/social/social-connector.ts';
import { createXOAuthPlatform } from '../../src/adapters/social/x/x-oauth-platform.ts';
import type { XServer } from '../fakes/x-server.ts';
import { createOAuthConnectionFixture, storedCredentials } from './oauth-connections.ts';

/** The environment that points the service at the fake X, with the fake's app as the operator's. */
export function xEnv(x: XServer): Record<string, string> {
  return {
    X_API_URL: x.url,
    X_AUTHORIZE_URL: x.authorizeUrl,
    X_CLIENT_ID: x.client.clientId,
    X_CLIENT_SECRET: x.client.clientSecret,
    SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true',
  };
}

/** Tokens for the fake's account, through its whole flow (consent, code exchange with PKCE). */
export async function xTokens(x: XServer): Promise<OAuthTokens> {
  const oauth = createXOAuthPlatform({ allowPrivateNetworks: true, apiUrl: x.url, authorizeUrl: x.authorizeUrl });
  const verifier = randomBytes(32).toString('base64url');
  const callbackUrl = 'https://content.example/oauth/x/callback';
  const authorizationUrl = oauth.authorizationUrl({
    client: x.client,
    callbackUrl,
    state: 'fixture',
    codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
  });
  const consented = await got(authorizationUrl, { followRedirect: false });
  const code = new URL(consented.headers.location ?? '').searchParams.get('code') ?? '';
  return oauth.exchangeCode({ client: x.client, callbackUrl, code, codeVerifier: verifier });
}

/** An X connection written straight to the database with `tokens` (the access token expiring at `expiresAt`). */
export function createXConnectionFixture(
  orm: Database,
  config: Config,
  input: { workspaceId: string; x: XServer; tokens: OAuthTokens; expiresAt?: number },
): Promise<SocialConnection> {
  const credentials: XCredentials = {
    platform: 'x',
    accessToken: input.tokens.accessToken,
    refreshToken: input.tokens.refreshToken,
    expiresAt: new Date(input.expiresAt ?? input.tokens.expiresAt).toISOString(),
    userId: input.x.account.id,
  };
  const { x, workspaceId } = input;
  return createOAuthConnectionFixture(orm, config, {
    workspaceId,
    credentials,
    serverUrl: x.url,
    accountName: `@${x.account.username}`,
    accountId: x.account.id,
  });
}

/** The X connection's credentials as stored. */
export function storedXCredentials(orm: Database, config: Config, connectionId: string): Promise<XCredentials> {
  return storedCredentials<XCredentials>(orm, config, connectionId);
}
