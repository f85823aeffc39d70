import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OAuthClient, OAuthPlatform } from '../../../../src/adapters/social/oauth-platform.ts';
import { SocialRateLimitedError, SocialRejectedError, SocialUnavailableError } from '../../../../src/adapters/social/social-connector.ts';
import { createThreadsOAuthPlatform } from '../../../../src/adapters/social/threads/threads-oauth-platform.ts';
import { startThreadsServer, type ThreadsServer } from '../../../fakes/threads-server.ts';
import { failureOf } from '../../../support/failure-of.ts';

const dayMs = 24 * 60 * 60 * 1000;
const callbackUrl = 'https://content.example/oauth/threads/callback';

let threads: ThreadsServer;
let platform: OAuthPlatform;
let client: OAuthClient;

/** What the person's browser does: opens the authorization URL and is sent back to our callback. */
async function authorizeInBrowser(authorizationUrl: string): Promise<URL> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location') ?? '');
}

beforeAll(async () => {
  threads = await startThreadsServer();
  platform = createThreadsOAuthPlatform({ apiUrl: threads.url, authorizeUrl: threads.authorizeUrl, allowPrivateNetworks: true });
  client = { clientId: threads.app.clientId, clientSecret: threads.app.clientSecret };
});
beforeEach(() => {
  threads.requests.length = 0;
});
afterAll(() => threads?.close());

describe('Threads OAuth platform: connecting', () => {
  it('when the person approves, then the code becomes a long-lived token of 60 days that names the account', async () => {
    const authorizationUrl = platform.authorizationUrl({ client, callbackUrl, state: 'state-123', codeChallenge: 'challenge-not-sent' });
    const url = new URL(authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(threads.authorizeUrl);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: threads.app.clientId,
      redirect_uri: callbackUrl,
      scope: 'threads_basic,threads_content_publish,threads_read_replies',
      response_type: 'code',
      state: 'state-123',
    });

    const callback = await authorizeInBrowser(authorizationUrl);
    expect(`${callback.origin}${callback.pathname}`).toBe(callbackUrl);
    expect(callback.searchParams.get('state')).toBe('state-123');
    const code = callback.searchParams.get('code') ?? '';
    const before = Date.now();
    const tokens = await platform.exchangeCode({ client, callbackUrl, code, codeVerifier: 'verifier-not-sent' });

    expect(tokens.refreshToken).toBeUndefined();
    expect(tokens.expiresAt).toBeGreaterThanOrEqual(before + 60 * dayMs);
    expect(tokens.expiresAt).toBeLessThanOrEqual(Date.now() + 60 * dayMs);
    expect(threads.requests.map(({ method, path }) => `${method} ${path}`)).toEqual(['GET /oauth/authorize', 'POST /oauth/access_token', 'GET /access_token']);
    // The code and the app secret travel in the POST's body, not in its URL.
    expect(threads.requests[1]?.query.size).toBe(0);
    expect(await platform.account(tokens.accessToken)).toEqual({ accountName: '@alice', accountId: threads.account.id });
  });

  it('when the code was already used, then the exchange is refused with the reason Threads gives', async () => {
    const callback = await authorizeInBrowser(platform.authorizationUrl({ client, callbackUrl, state: 's', codeChallenge: 'c' }));
    const code = callback.searchParams.get('code') ?? '';
    await platform.exchangeCode({ client, callbackUrl, code, codeVerifier: 'v' });

    const error = await failureOf(platform.exchangeCode({ client, callbackUrl, code, codeVerifier: 'v' }), SocialRejectedError);
    expect(error.reason).toBe('Threads refused the authorization code (400, code 400): Invalid authorization code');
  });

  it('when the app secret is wrong, then the exchange is refused and the secret is not in the reason', async () => {
    const callback = await authorizeInBrowser(platform.authorizationUrl({ client, callbackUrl, state: 's', codeChallenge: 'c' }));
    const wrong = { ...client, clientSecret: 'wrong-secret-0123456789' };
    const error = await failureOf(platform.exchangeCode({ client: wrong, callbackUrl, code: callback.searchParams.get('code') ?? '', codeVerifier: 'v' }));
    expect(error).toBeInstanceOf(SocialRejectedError);
    expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain('wrong-secret-0123456789');
  });
});

describe('Threads OAuth platform: refreshing', () => {
  it('when the long-lived token is a few days old, then it is refreshed for 60 days and the new token works', async () => {
    const old = threads.issueToken('long', 3 * dayMs);
    const before = Date.now();
    const refreshed = await platform.refresh({ client, tokens: { accessToken: old, expiresAt: before + 57 * dayMs } });

    expect(refreshed.accessToken).not.toBe(old);
    expect(refreshed.refreshToken).toBeUndefined();
    expect(refreshed.expiresAt).toBeGreaterThanOrEqual(before + 60 * dayMs);
    expect(threads.requests.at(-1)).toMatchObject({ method: 'GET', path: '/refresh_access_token' });
    expect(threads.requests.at(-1)?.query.get('grant_type')).toBe('th_refresh_token');
    expect(await platform.account(refreshed.accessToken)).toMatchObject({ accountId: threads.account.id });
  });

  it('when the token is younger than a day, then it is kept as it is without asking Threads, which would refuse', async () => {
    const tokens = { accessToken: threads.issueToken('long', 60_000), expiresAt: Date.now() + 60 * dayMs - 60_000 };
    expect(await platform.refresh({ client, tokens })).toBe(tokens);
    expect(threads.requests).toHaveLength(0);
  });

  it('when the token has expired, then Threads refuses it (190) and the refresh is refused for good', async () => {
    const expired = threads.issueToken('long', 61 * dayMs);
    const error = await failureOf(platform.refresh({ client, tokens: { accessToken: expired, expiresAt: Date.now() - dayMs } }), SocialRejectedError);
    expect(error.about).toBe('credentials');
    expect(error.reason).toMatch(/^Threads rejected the access token \(400, code 190\/463\): Error validating access token: Session has expired/);
    expect(error.reason).not.toContain(expired);
  });

  it('when Threads answers 503, then the refresh reports Threads unavailable, never a dead token', async () => {
    threads.script('refresh', [{ status: 503 }]);
    const tokens = { accessToken: threads.issueToken('long', 30 * dayMs), expiresAt: Date.now() + 30 * dayMs };
    const error = await failureOf(platform.refresh({ client, tokens }));
    expect(error).toBeInstanceOf(SocialUnavailableError);
    expect(error.message).toBe('Threads is unavailable (503, code 2): Service temporarily unavailable');
  });

  it('when Threads throttles the refresh (code 4), then it is a rate limit, never a dead token', async () => {
    threads.script('refresh', [{ status: 400, code: 4, message: 'Application request limit reached' }]);
    const tokens = { accessToken: threads.issueToken('long', 30 * dayMs), expiresAt: Date.now() + 30 * dayMs };
    const error = await failureOf(platform.refresh({ client, tokens }), SocialRateLimitedError);
    expect(error.retryAfterMs).toBe(60_000);
  });
});
