import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { SocialConnection } from '../../src/adapters/database/entities/social-connection.ts';
import { randomBytes } from 'node:crypto';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { createXOAuthPlatform } from '../../src/adapters/social/x/x-oauth-platform.ts';
import { stateHashOf } from '../../src/domain/social-connections/start-authorization.ts';
import { startXServer, type XServer } from '../fakes/x-server.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';
import { connectThroughOAuth, continueOnConsentPage, visit } from '../support/oauth-connections.ts';
import { storedXCredentials, xEnv } from '../support/x-connections.ts';

// The tests whose post's answer never comes wait for the request to time out: short here, 30 s by default.
const lostAnswerSeconds = '5';

type Problem = Schemas['Problem'];
type Connection = Schemas['SocialConnection'];
type Authorization = Schemas['OAuthAuthorization'];
type Target = Schemas['PublishTarget'];

let x: XServer;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
const redirectUri = 'https://client.example/connected';

beforeAll(async () => {
  x = await startXServer();
  ({ app, workspace, projectId } = await startAppWithWorkspace({
    env: { ...xEnv(x), API_WAIT_SECONDS: '10', SOCIAL_REQUEST_TIMEOUT_SECONDS: lostAnswerSeconds },
    project: 'X',
  }));
  expect((await workspace.client.call('PATCH', '/workspace', { body: { oauthRedirectUris: [redirectUri, 'http://127.0.0.1:8765/done'] } })).status).toBe(200);
});
afterAll(async () => {
  await app?.stop();
  await x?.close();
});

/** The whole round trip for X. */
function connect(client = workspace.client): Promise<URL> {
  return connectThroughOAuth(client, { platform: 'x', redirectUri });
}

describe('connecting X through OAuth', () => {
  it('when the person consents, then the callback makes the connection, starts its keep-alive and sends them back with its id', async () => {
    const created = await workspace.client.post<Authorization>('/social-connections/authorizations', { platform: 'x', redirectUri });
    expect(created.status).toBe(201);
    expect(Date.parse(created.body.expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(created.body.authorizationUrl).toBe(`http://localhost:${new URL(app.url).port}/oauth/consent/${created.body.state}`);
    const authorizationUrl = await continueOnConsentPage(created.body.authorizationUrl);
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(x.authorizeUrl);
    expect(authorizationUrl.searchParams.get('redirect_uri')).toBe(`http://localhost:${new URL(app.url).port}/oauth/x/callback`);
    expect(authorizationUrl.searchParams.get('state')).toBe(created.body.state);

    const consent = await visit(authorizationUrl.toString());
    const callback = await visit(consent.location!.toString());
    expect(callback.status).toBe(303);
    const back = callback.location!;
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    const connectionId = back.searchParams.get('connectionId')!;

    const connection = await workspace.client.get<Connection>(`/social-connections/${connectionId}`);
    expect(connection.body).toMatchObject({ platform: 'x', accountName: '@alice_x', serverUrl: x.url, status: 'active', lastError: null });
    expect(Date.parse(connection.body.expiresAt!)).toBeGreaterThan(Date.now() + 7_000_000);
    const stored = await storedXCredentials(app.api.services.orm, app.config, connectionId);
    expect(stored).toMatchObject({ platform: 'x', refreshToken: x.currentRefreshToken(), userId: x.account.id });
    expect(JSON.stringify(connection.body)).not.toContain(stored.accessToken);
    const keepAlive = await app.api.services.temporal.workflow.getHandle(workflowIds.socialConnection(connectionId)).describe();
    expect(keepAlive.status.name).toBe('RUNNING');

    // The state was used: the same callback again goes nowhere.
    const again = await visit(consent.location!.toString());
    expect(again).toMatchObject({ status: 400, location: null });
    expect(again.text).toContain('not valid');
  });

  it('when the person refuses on X, then they are sent back with error=access_denied and nothing is connected', async () => {
    const before = await app.api.services.orm.em.fork().count(SocialConnection, {});
    x.decision = 'deny';
    try {
      const back = await connect();
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(back.searchParams.get('connectionId')).toBeNull();
    } finally {
      x.decision = 'consent';
    }
    expect(await app.api.services.orm.em.fork().count(SocialConnection, {})).toBe(before);
  });

  it('when X refuses the code exchange, then they are sent back with error=exchange_failed', async () => {
    x.script('token', [{ status: 400 }]);
    expect((await connect()).searchParams.get('error')).toBe('exchange_failed');
  });

  it("when the workspace's connections are used up, then they are sent back with error=quota_exceeded", async () => {
    const starter = await createTestWorkspace(app, 'starter');
    expect((await starter.client.call('PATCH', '/workspace', { body: { oauthRedirectUris: [redirectUri] } })).status).toBe(200);
    for (let made = 0; made < 3; made += 1) expect((await connect(starter.client)).searchParams.get('connectionId')).not.toBeNull();
    expect((await connect(starter.client)).searchParams.get('error')).toBe('quota_exceeded');
  });

  it('when the state is unknown, then the callback answers our 400 page and redirects nowhere', async () => {
    const answer = await visit(`${app.url}/oauth/x/callback?code=abc&state=not-ours`);
    expect(answer).toMatchObject({ status: 400, location: null });
  });

  it('when the redirectUri is not on the allow-list, or the platform does not use OAuth, then it answers 400 naming it', async () => {
    const stranger = await workspace.client.post<Problem>('/social-connections/authorizations', { platform: 'x', redirectUri: 'https://evil.example/steal' });
    expect(stranger.status).toBe(400);
    expect(stranger.body.detail).toContain('https://evil.example/steal');
    const mastodon = await workspace.client.post<Problem>('/social-connections/authorizations', { platform: 'mastodon', redirectUri });
    expect(mastodon.status).toBe(400);
    expect(mastodon.body.errors?.[0]?.path).toBe('/platform');
  });

  it('when the allow-list holds a plain http URL off loopback, then PATCH /workspace answers 400 naming it', async () => {
    const response = await workspace.client.call<Problem>('PATCH', '/workspace', { body: { oauthRedirectUris: ['http://client.example/back'] } });
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]).toMatchObject({ path: '/oauthRedirectUris', message: expect.stringContaining('http://client.example/back') });
    expect((await workspace.client.get<Schemas['Workspace']>('/workspace')).body.oauthRedirectUris).toEqual([redirectUri, 'http://127.0.0.1:8765/done']);
  });
});

/** X's authorization URL for `state` as a client could build it without our consent page (any challenge). */
function straightToX(state: string): string {
  const oauth = createXOAuthPlatform({ allowPrivateNetworks: true, apiUrl: x.url, authorizeUrl: x.authorizeUrl });
  const callbackUrl = `http://localhost:${new URL(app.url).port}/oauth/x/callback`;
  return oauth.authorizationUrl({ client: x.client, callbackUrl, state, codeChallenge: randomBytes(32).toString('base64url') });
}

describe('our consent page', () => {
  it('when a state never went through our consent page, then the callback answers our page, connects nothing and redirects nowhere', async () => {
    const before = await app.api.services.orm.em.fork().count(SocialConnection, {});
    const created = await workspace.client.post<Authorization>('/social-connections/authorizations', { platform: 'x', redirectUri });
    const atX = await visit(straightToX(created.body.state));
    expect(atX.location?.searchParams.get('code')).toBeTruthy();
    const callback = await visit(atX.location!.toString());
    expect(callback).toMatchObject({ status: 400, location: null });
    expect(callback.text).toContain('not confirmed');
    expect(await app.api.services.orm.em.fork().count(SocialConnection, {})).toBe(before);
    // The state was used up: the consent page no longer continues with it.
    expect((await visit(created.body.authorizationUrl)).status).toBe(400);
  });

  it("when whoever made the link presses Continue itself and hands the person the platform's page, then the person's callback connects nothing", async () => {
    const before = await app.api.services.orm.em.fork().count(SocialConnection, {});
    const created = await workspace.client.post<Authorization>('/social-connections/authorizations', { platform: 'x', redirectUri });
    // The link's maker, in its own browser: the consent page, Continue, and the platform's page it is sent on to.
    const platformPage = await continueOnConsentPage(created.body.authorizationUrl);
    // The person, sent that page: they consent on X, and X sends their browser (which never saw our page) back to us.
    const atX = await visit(platformPage.toString());
    const callback = await fetch(atX.location!, { redirect: 'manual' });
    expect(callback.status).toBe(400);
    expect(callback.headers.get('location')).toBeNull();
    expect(await callback.text()).toContain('another browser');
    expect(await app.api.services.orm.em.fork().count(SocialConnection, {})).toBe(before);
  });

  it('when the state has expired, then the callback answers our page and sends the person nowhere the client registered', async () => {
    const created = await workspace.client.post<Authorization>('/social-connections/authorizations', { platform: 'x', redirectUri });
    const atX = await visit((await continueOnConsentPage(created.body.authorizationUrl)).toString());
    await app.api.services.orm.em
      .fork()
      .execute("update oauth_authorizations set expires_at = now() - interval '1 hour' where state_hash = ?", [stateHashOf(created.body.state)]);
    const callback = await visit(atX.location!.toString());
    expect(callback).toMatchObject({ status: 400, location: null });
    expect(callback.text).toContain('expired');
  });

  it('when opened, then it names the workspace (escaped) and the platform, is never cached or framed, and runs no script', async () => {
    const named = await createTestWorkspace(app, 'growth', '<img src=x onerror=alert(1)> & Co');
    expect((await named.client.call('PATCH', '/workspace', { body: { oauthRedirectUris: [redirectUri] } })).status).toBe(200);
    const created = await named.client.post<Authorization>('/social-connections/authorizations', { platform: 'x', redirectUri });
    const page = await fetch(created.body.authorizationUrl);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62; &#38; Co');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).toContain('<strong id="platform">X</strong>');
    expect(html).toContain('client.example');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('set-cookie')).toMatch(/HttpOnly.*SameSite=Strict/i);
  });

  it("when Continue is sent without the page's cookie or from another site, then it answers 403 and confirms nothing", async () => {
    const created = await workspace.client.post<Authorization>('/social-connections/authorizations', { platform: 'x', redirectUri });
    const page = await fetch(created.body.authorizationUrl);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const form = { method: 'POST', redirect: 'manual', body: new URLSearchParams({ csrf }).toString() } as const;
    const formType = { 'content-type': 'application/x-www-form-urlencoded' };
    expect((await fetch(created.body.authorizationUrl, { ...form, headers: formType })).status).toBe(403);
    expect((await fetch(created.body.authorizationUrl, { ...form, headers: { ...formType, cookie, 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    const [row] = await app.api.services.orm.em
      .fork()
      .execute<Array<{ confirmed_at: Date | null }>>('select confirmed_at from oauth_authorizations where state_hash = ?', [stateHashOf(created.body.state)]);
    expect(row?.confirmed_at).toBeNull();
  });

  it('when a workspace has 50 authorizations pending, then another answers 429 naming the cap, with when to retry', async () => {
    const busy = await createTestWorkspace(app, 'growth');
    expect((await busy.client.call('PATCH', '/workspace', { body: { oauthRedirectUris: [redirectUri] } })).status).toBe(200);
    for (let made = 0; made < 50; made += 1) {
      expect((await busy.client.post('/social-connections/authorizations', { platform: 'x', redirectUri })).status).toBe(201);
    }
    const refused = await busy.client.post<Problem>('/social-connections/authorizations', { platform: 'x', redirectUri });
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toContain('50 OAuth authorizations pending');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(500);
  });
});

describe('an X connection', () => {
  it('when verified, then X is asked now and the connection answered; when X no longer accepts its refresh token, verify marks it needs_reauth and publishing to it fails at once saying so', async () => {
    const connectionId = (await connect()).searchParams.get('connectionId')!;
    const verified = await workspace.client.post<Connection>(`/social-connections/${connectionId}/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body.status).toBe('active');
    expect(x.requests.at(-1)).toMatchObject({ method: 'GET', path: '/2/users/me' });

    // The token expires within the margin and X refuses the refresh (the person revoked the app).
    const em = app.api.services.orm.em.fork();
    const row = await em.findOneOrFail(SocialConnection, connectionId);
    const credentials = {
      ...(await storedXCredentials(app.api.services.orm, app.config, connectionId)),
      refreshToken: 'revoked',
      expiresAt: new Date().toISOString(),
    };
    row.credentialsSealed = app.api.services.secrets.seal(JSON.stringify(credentials));
    await em.flush();
    const refused = await workspace.client.post<Connection>(`/social-connections/${connectionId}/verify`);
    expect(refused.body).toMatchObject({ status: 'needs_reauth', lastError: expect.stringContaining('invalid_grant') });

    const post = (await workspace.client.post<{ id: string }>('/posts', { title: 'Harbour lights', prompt: 'Boats at night', projectId })).body.id;
    const published = await workspace.client.post<Target[]>(`/posts/${post}/publish-social`, { connectionIds: [connectionId] });
    expect(published.body[0]).toMatchObject({ status: 'Failed', errorMessage: expect.stringContaining('needs to be connected again') });
  });

  it('when deleted, then its keep-alive workflow ends', async () => {
    const connectionId = (await connect()).searchParams.get('connectionId')!;
    const handle = app.api.services.temporal.workflow.getHandle(workflowIds.socialConnection(connectionId));
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect((await workspace.client.delete(`/social-connections/${connectionId}`)).status).toBe(204);
    expect((await handle.describe()).status.name).toBe('TERMINATED');
  });

  it('when a post with an image is published to it, then X gets the image with its description and the post', async () => {
    const connectionId = (await connect()).searchParams.get('connectionId')!;
    const id = (await workspace.client.post<{ id: string }>('/posts', { title: 'Harbour lights at dusk', prompt: 'Boats at night', projectId })).body.id;
    expect((await workspace.client.post(`/posts/${id}/generate`)).status).toBe(200);
    const response = await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, { connectionIds: [connectionId] });
    expect(response.body[0]).toMatchObject({ platform: 'x', status: 'Published' });
    const tweet = x.tweets.find((candidate) => candidate.id === response.body[0]!.externalPostId);
    expect(tweet?.text).toBe('Harbour lights at dusk');
    expect(x.media.find((media) => media.id === tweet?.mediaIds[0])).toMatchObject({ mediaType: 'image/png', altText: 'Boats at night' });
  });

  it('when the answer to the post never comes after X created it, then the retry finds that post: Published, one post on X', { timeout: 120_000 }, async () => {
    const connectionId = (await connect()).searchParams.get('connectionId')!;
    const id = (await workspace.client.post<{ id: string }>('/posts', { title: 'Lost answer, one post', prompt: 'Boats at night', projectId })).body.id;
    x.timeOutAfterNextTweet = true;
    await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, { connectionIds: [connectionId] });
    await expect
      .poll(async () => (await workspace.client.get<Target[]>(`/posts/${id}/publish-targets`)).body[0]?.status, { timeout: 100_000, interval: 500 })
      .toBe('Published');
    const [target] = (await workspace.client.get<Target[]>(`/posts/${id}/publish-targets`)).body;
    expect(x.tweets.filter((tweet) => tweet.text === 'Lost answer, one post').map((tweet) => tweet.id)).toEqual([target!.externalPostId]);
  });
});
