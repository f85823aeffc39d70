import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { ApiKey } from '../../src/adapters/database/entities/api-key.ts';
import { hashApiKey } from '../../src/domain/api-keys/api-key-secret.ts';
import { changePlan } from '../../src/domain/workspaces/change-plan.ts';
import { planRules } from '../../src/domain/workspaces/plans.ts';
import { apiClient } from '../support/http.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';

type Problem = Schemas['Problem'];

let app: TestApp;
let growth: TestWorkspace;

beforeAll(async () => {
  ({ app, workspace: growth } = await startAppWithWorkspace());
});
afterAll(() => app?.stop());

describe('POST /api-keys', () => {
  it('when created, then the full key is returned once, works at once, and is stored only as a hash', async () => {
    const created = await growth.client.post<Schemas['CreateApiKeyResponse']>('/api-keys', { name: 'CI', expiresAt: '2099-01-01T00:00:00Z' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(created.body.key.startsWith(created.body.prefix)).toBe(true);
    expect(created.body).toMatchObject({ name: 'CI', expiresAt: '2099-01-01T00:00:00.000Z' });
    expect((await apiClient(app.url, created.body.key).get('/projects')).status).toBe(200);

    const stored = await app.api.services.orm.em.fork().findOneOrFail(ApiKey, created.body.id);
    expect(stored.keyHash).toBe(hashApiKey(created.body.key));
    expect(JSON.stringify(stored)).not.toContain(created.body.key);

    const listed = await growth.client.get<Schemas['ApiKeyListItem'][]>('/api-keys');
    const item = listed.body.find((key) => key.id === created.body.id);
    expect(item).toEqual({
      id: created.body.id,
      name: 'CI',
      keyPrefix: created.body.prefix,
      isActive: true,
      scope: 'full',
      lastUsedAt: expect.any(String),
      expiresAt: '2099-01-01T00:00:00.000Z',
      createdAt: expect.any(String),
    });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
  });

  it.each([
    ['no name', {}, '/name'],
    ['an expiry in the past', { name: 'old', expiresAt: '2001-01-01T00:00:00Z' }, '/expiresAt'],
    ['an expiry that is not a date-time', { name: 'x', expiresAt: 'tomorrow' }, '/expiresAt'],
  ])('when the body has %s, then it answers 400 naming the member', async (_case, body, path) => {
    const response = await growth.client.post<Problem>('/api-keys', body);
    expect(response.status).toBe(400);
    expect(response.body.errors?.map((error) => error.path)).toContain(path);
  });
});

describe('POST /api-keys/{id}/regenerate and DELETE /api-keys/{id}', () => {
  it('when regenerated, then the old secret fails with 401 at once and the new one works', async () => {
    const created = await growth.client.post<Schemas['CreateApiKeyResponse']>('/api-keys', { name: 'rotating' });
    const regenerated = await growth.client.post<Schemas['RegenerateApiKeyResponse']>(`/api-keys/${created.body.id}/regenerate`);
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.id).toBe(created.body.id);
    expect(regenerated.body.key).not.toBe(created.body.key);
    expect((await apiClient(app.url, created.body.key).get('/projects')).status).toBe(401);
    expect((await apiClient(app.url, regenerated.body.key).get('/projects')).status).toBe(200);
  });

  it('when deleted, then the key fails with 401 at once and is no longer listed', async () => {
    const created = await growth.client.post<Schemas['CreateApiKeyResponse']>('/api-keys', { name: 'doomed' });
    const doomed = apiClient(app.url, created.body.key);
    expect((await doomed.get('/projects')).status).toBe(200);
    expect((await growth.client.delete(`/api-keys/${created.body.id}`)).status).toBe(204);
    expect((await doomed.get('/projects')).status).toBe(401);
    const listed = await growth.client.get<Schemas['ApiKeyListItem'][]>('/api-keys');
    expect(listed.body.map((key) => key.id)).not.toContain(created.body.id);
  });

  it('when the key belongs to another workspace, then regenerate and delete answer 404 and the key keeps working', async () => {
    const other = await createTestWorkspace(app, 'growth');
    const theirs = await other.client.post<Schemas['CreateApiKeyResponse']>('/api-keys', { name: 'theirs' });
    expect((await growth.client.post(`/api-keys/${theirs.body.id}/regenerate`)).status).toBe(404);
    expect((await growth.client.delete(`/api-keys/${theirs.body.id}`)).status).toBe(404);
    expect((await apiClient(app.url, theirs.body.key).get('/projects')).status).toBe(200);
    const listed = await growth.client.get<Schemas['ApiKeyListItem'][]>('/api-keys');
    expect(listed.body.map((key) => key.id)).not.toContain(theirs.body.id);
  });
});

describe('Starter plan', () => {
  it('when a Starter workspace calls any API-key operation, then it answers 403 plan-upgrade-required', async () => {
    const starter = await createTestWorkspace(app, 'starter');
    const someId = '018f0000-0000-7000-8000-000000000000';
    for (const response of [
      await starter.client.get<Problem>('/api-keys'),
      await starter.client.post<Problem>('/api-keys', { name: 'nope' }),
      await starter.client.delete<Problem>(`/api-keys/${someId}`),
      await starter.client.post<Problem>(`/api-keys/${someId}/regenerate`),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ type: '/problems/plan-upgrade-required', requiredPlan: 'growth' });
    }
  });
});

describe('the plan budget of API keys', () => {
  it('when more keys are asked for at once than the Growth plan allows, then exactly the limit exist and the rest answer 403 plan-limit-reached', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const limit = planRules.growth.limits.apiKeys!;
    // The workspace has its first key already: limit - 1 places are left, and three more are asked for.
    const answers = await Promise.all(Array.from({ length: limit + 2 }, (_, index) => own.client.post<Problem>('/api-keys', { name: `key ${index}` })));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(limit - 1);
    const refused = answers.filter((answer) => answer.status === 403);
    expect(refused).toHaveLength(3);
    for (const answer of refused)
      expect(answer.body).toMatchObject({ type: '/problems/plan-limit-reached', quota: { name: 'apiKeys', plan: 'growth', limit } });
    expect(await app.api.services.orm.em.fork().count(ApiKey, { workspaceId: own.id })).toBe(limit);
  });
});

describe("the dashboard's API keys (Settings), on every plan", () => {
  const dashboard = (key: string, path: string, method = 'GET') =>
    fetch(`${app.url}/dashboard/api${path}`, { method, headers: { authorization: `Bearer ${key}` } });

  it('when a workspace downgraded to Starter lists and revokes a key it made on Growth, then the key answers 401 at once; the public /api-keys stays 403', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const leaked = (await own.client.post<Schemas['CreateApiKeyResponse']>('/api-keys', { name: 'leaked' })).body;
    await changePlan(app.api.services, own.id, 'starter');
    expect((await apiClient(app.url, leaked.key).get('/projects')).status).toBe(200);
    expect((await own.client.get<Problem>('/api-keys')).status).toBe(403);

    const listed = await dashboard(own.key, '/api-keys');
    expect(listed.status).toBe(200);
    const keys = (await listed.json()) as Schemas['ApiKeyListItem'][];
    expect(keys.map(({ name, keyPrefix }) => ({ name, keyPrefix }))).toEqual([
      { name: 'leaked', keyPrefix: leaked.prefix },
      { name: expect.any(String), keyPrefix: own.key.slice(0, 11) },
    ]);
    expect(JSON.stringify(keys)).not.toContain(leaked.key);

    expect((await dashboard(own.key, `/api-keys/${leaked.id}`, 'DELETE')).status).toBe(204);
    expect((await apiClient(app.url, leaked.key).get('/projects')).status).toBe(401);
    expect(((await (await dashboard(own.key, '/api-keys')).json()) as Schemas['ApiKeyListItem'][]).map(({ id }) => id)).not.toContain(leaked.id);
  });

  it("when the key is another workspace's, unknown or not an id, then revoking answers 404 or 400 and nothing changes; without a key 401", async () => {
    const other = await createTestWorkspace(app, 'starter');
    const [theirs] = (await (await dashboard(other.key, '/api-keys')).json()) as Schemas['ApiKeyListItem'][];
    expect((await dashboard(growth.key, `/api-keys/${theirs!.id}`, 'DELETE')).status).toBe(404);
    expect((await dashboard(growth.key, '/api-keys/018f0000-0000-7000-8000-000000000000', 'DELETE')).status).toBe(404);
    expect((await dashboard(growth.key, '/api-keys/not-an-id', 'DELETE')).status).toBe(400);
    expect((await fetch(`${app.url}/dashboard/api/api-keys`)).status).toBe(401);
    expect((await other.client.get('/projects')).status).toBe(200);
  });
});
