import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { SocialConnection } from '../../src/adapters/database/entities/social-connection.ts';
import { planRules } from '../../src/domain/workspaces/plans.ts';
import { startBlueskyServer, type BlueskyServer } from '../fakes/bluesky-server.ts';
import { startMastodonServer, type MastodonServer } from '../fakes/mastodon-server.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';

type Problem = Schemas['Problem'];
type Connection = Schemas['SocialConnection'];

let mastodon: MastodonServer;
let bluesky: BlueskyServer;
let app: TestApp;
let workspace: TestWorkspace;

beforeAll(async () => {
  mastodon = await startMastodonServer();
  bluesky = await startBlueskyServer();
  ({ app, workspace } = await startAppWithWorkspace({ env: { SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true' }, plan: 'starter' }));
});
afterAll(async () => {
  await app?.stop();
  await mastodon?.close();
  await bluesky?.close();
});

describe('POST /social-connections', () => {
  it('when Mastodon accepts the token, then the account is connected and the token is stored sealed, never returned', async () => {
    const response = await workspace.client.post<Connection>('/social-connections', {
      platform: 'mastodon',
      instanceUrl: mastodon.url,
      accessToken: mastodon.token,
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`/api/v1/social-connections/${response.body.id}`);
    expect(response.body).toEqual({
      id: expect.any(String),
      platform: 'mastodon',
      serverUrl: mastodon.url,
      accountName: expect.stringContaining(mastodon.account.username),
      destination: null,
      settings: {},
      status: 'active',
      expiresAt: null,
      lastError: null,
      createdAt: expect.any(String),
    });
    expect(JSON.stringify(response.body)).not.toContain(mastodon.token);
    const stored = await app.api.services.orm.em.fork().findOneOrFail(SocialConnection, response.body.id);
    expect(stored.credentialsSealed).not.toContain(mastodon.token);
    expect(app.api.services.secrets.open(stored.credentialsSealed)).toContain(mastodon.token);
  });

  it.each([
    ['holds NUL', 'alice\u0000'],
    ['is longer than its column', 'a'.repeat(400)],
  ])('when the server answers an account name that %s, then it answers 400 naming the instance and connects nothing', async (_what, username) => {
    const own = await createTestWorkspace(app, 'starter');
    const original = mastodon.account.username;
    mastodon.account.username = username;
    try {
      const response = await own.client.post<Problem>('/social-connections', { platform: 'mastodon', instanceUrl: mastodon.url, accessToken: mastodon.token });
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([expect.objectContaining({ path: '/instanceUrl', message: expect.stringMatching(/unusable (acct|account name)/) })]);
      expect(await app.api.services.orm.em.fork().count(SocialConnection, { workspaceId: own.id })).toBe(0);
    } finally {
      mastodon.account.username = original;
    }
  });

  it('when Bluesky accepts the handle and app password, then the account is connected', async () => {
    const response = await workspace.client.post<Connection>('/social-connections', {
      platform: 'bluesky',
      serviceUrl: bluesky.url,
      handle: bluesky.handle,
      appPassword: bluesky.appPassword,
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ platform: 'bluesky', accountName: bluesky.handle });
    expect(JSON.stringify(response.body)).not.toContain(bluesky.appPassword);
  });

  it.each([
    ['a rejected Mastodon token', { platform: 'mastodon', accessToken: 'wrong' }, '/accessToken'],
    ['a rejected Bluesky app password', { platform: 'bluesky', appPassword: 'wrong' }, '/appPassword'],
    ['Mastodon without a token', { platform: 'mastodon', accessToken: undefined }, '/accessToken'],
    ['Bluesky with a Mastodon token', { platform: 'bluesky', accessToken: 'x' }, '/accessToken'],
    ['an http instance', { platform: 'mastodon', instanceUrl: 'http://mastodon.example' }, '/instanceUrl'],
    ['an unknown platform', { platform: 'myspace' }, '/platform'],
    // Once a 503, as if the host's absence were our outage: the name's servers say it does not exist.
    ['a Mastodon instance whose name does not exist', { platform: 'mastodon', instanceUrl: 'https://no-such-instance.invalid' }, '/instanceUrl'],
    ['a Bluesky service whose name does not exist', { platform: 'bluesky', serviceUrl: 'https://no-such-pds.invalid' }, '/serviceUrl'],
  ])('when the request has %s, then it answers 400 naming the member', async (_case, overrides, path) => {
    const base =
      overrides.platform === 'bluesky'
        ? { platform: 'bluesky', serviceUrl: bluesky.url, handle: bluesky.handle, appPassword: bluesky.appPassword }
        : { platform: 'mastodon', instanceUrl: mastodon.url, accessToken: mastodon.token };
    const body = Object.fromEntries(Object.entries({ ...base, ...overrides }).filter(([, value]) => value !== undefined));
    const response = await workspace.client.post<Problem>('/social-connections', body);
    expect(response.status).toBe(400);
    expect(response.body.errors?.map((error) => error.path)).toContain(path);
  });
});

describe('GET and DELETE /social-connections', () => {
  it('when listed, read and deleted, then only the workspace own connections show, and another workspace gets 404', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const created = (await own.client.post<Connection>('/social-connections', { platform: 'mastodon', instanceUrl: mastodon.url, accessToken: mastodon.token }))
      .body;
    const listed = await own.client.get<Connection[]>('/social-connections');
    expect(listed.body.map((connection) => connection.id)).toEqual([created.id]);
    expect((await own.client.get<Connection>(`/social-connections/${created.id}`)).body).toEqual(created);

    const stranger = await createTestWorkspace(app, 'growth');
    expect((await stranger.client.get(`/social-connections/${created.id}`)).status).toBe(404);
    expect((await stranger.client.delete(`/social-connections/${created.id}`)).status).toBe(404);
    expect((await stranger.client.get<Connection[]>('/social-connections')).body).toEqual([]);

    expect((await own.client.delete(`/social-connections/${created.id}`)).status).toBe(204);
    expect((await own.client.get(`/social-connections/${created.id}`)).status).toBe(404);
  });
});

describe('the plan budget of social connections', () => {
  it.each([['starter'], ['growth']] as const)(
    'when more connections are asked for at once than the %s plan allows, then exactly the limit exist and the rest answer 403 plan-limit-reached',
    async (plan) => {
      const own = await createTestWorkspace(app, plan);
      const limit = planRules[plan].limits.socialConnections!;
      const connect = () => own.client.post<Problem>('/social-connections', { platform: 'mastodon', instanceUrl: mastodon.url, accessToken: mastodon.token });
      const answers = await Promise.all(Array.from({ length: limit + 2 }, connect));
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(limit);
      const refused = answers.filter((answer) => answer.status === 403);
      expect(refused).toHaveLength(2);
      for (const answer of refused)
        expect(answer.body).toMatchObject({ type: '/problems/plan-limit-reached', quota: { name: 'socialConnections', plan, limit } });
      expect(await app.api.services.orm.em.fork().count(SocialConnection, { workspaceId: own.id })).toBe(limit);
      expect((await connect()).body).toMatchObject({ type: '/problems/plan-limit-reached' });
    },
  );
});
