import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { ApiKey } from '../../src/adapters/database/entities/api-key.ts';
import { issueApiKey } from '../../src/domain/api-keys/issue-api-key.ts';
import { apiClient } from '../support/http.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';

type Problem = Schemas['Problem'];

let app: TestApp;
let workspace: TestWorkspace;

beforeAll(async () => {
  ({ app, workspace } = await startAppWithWorkspace({ env: { RATE_LIMIT_REQUESTS: '5', RATE_LIMIT_WINDOW_SECONDS: '60', RATE_LIMIT_AUTH_FAILURES: '10' } }));
});
afterAll(() => app?.stop());

async function issueKey(options: { expiresAt?: Date; isActive?: boolean; workspaceId?: string } = {}): Promise<string> {
  const em = app.api.services.orm.em.fork();
  const { apiKey, key } = issueApiKey(em, { workspaceId: options.workspaceId ?? workspace.id, name: 'test', expiresAt: options.expiresAt ?? null });
  if (options.isActive === false) apiKey.isActive = false;
  await em.flush();
  return key;
}

describe('authentication', () => {
  it.each([
    ['no Authorization header', null, 'Missing API key'],
    ['a Basic scheme', 'Basic dXNlcjpwYXNz', 'Malformed Authorization header'],
    ['a key without the sk_ prefix', 'Bearer pk_' + 'a'.repeat(43), 'Malformed API key'],
    ['a key of the wrong length', 'Bearer sk_abc', 'Malformed API key'],
    ['an unknown key', 'Bearer sk_' + 'A'.repeat(43), 'Unknown API key'],
  ])('when the request has %s, then it answers 401 with a problem body', async (_case, authorization, detail) => {
    const headers: Record<string, string> = authorization ? { authorization } : {};
    const response = await apiClient(app.url).get<Problem>('/projects', { headers });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body).toMatchObject({ type: '/problems/unauthorized', title: 'Unauthorized', status: 401, instance: '/api/v1/projects' });
    expect(response.body.detail).toContain(detail);
    expect(response.body.requestId).toBe(response.headers.get('x-request-id'));
  });

  it('when any operation is called without a key, then it answers 401', async () => {
    const id = '018f0000-0000-7000-8000-000000000000';
    const operations: Array<[string, string]> = [
      ['GET', '/projects'],
      ['POST', '/projects'],
      ['GET', `/projects/${id}`],
      ['PUT', `/projects/${id}`],
      ['DELETE', `/projects/${id}`],
      ['POST', `/projects/${id}/cover`],
      ['DELETE', `/projects/${id}/cover`],
      ['GET', '/brandkits'],
      ['POST', '/brandkits'],
      ['GET', `/brandkits/${id}`],
      ['PUT', `/brandkits/${id}`],
      ['DELETE', `/brandkits/${id}`],
      ['GET', '/api-keys'],
      ['POST', '/api-keys'],
      ['DELETE', `/api-keys/${id}`],
      ['POST', `/api-keys/${id}/regenerate`],
      ['GET', '/workspace'],
      ['GET', '/posts'],
      ['POST', '/posts'],
      ['GET', `/posts/project/${id}`],
      ['GET', `/posts/${id}`],
      ['PUT', `/posts/${id}`],
      ['DELETE', `/posts/${id}`],
      ['POST', `/posts/${id}/generate`],
      ['POST', `/posts/${id}/render`],
      ['GET', `/posts/${id}/versions`],
      ['POST', `/posts/${id}/versions/${id}/restore`],
      ['GET', `/posts/${id}/download`],
      ['GET', '/usage/activity'],
      ['POST', `/posts/${id}/publish`],
      ['POST', `/posts/${id}/schedule`],
      ['POST', `/posts/${id}/publish-social`],
      ['GET', `/posts/${id}/publish-targets`],
      ['GET', '/webhooks'],
      ['POST', '/webhooks'],
      ['PUT', `/webhooks/${id}`],
      ['DELETE', `/webhooks/${id}`],
      ['GET', `/webhooks/${id}/deliveries`],
      ['GET', '/social-connections'],
      ['POST', '/social-connections'],
      ['GET', `/social-connections/${id}`],
      ['DELETE', `/social-connections/${id}`],
      ['GET', '/schedules'],
      ['POST', '/schedules'],
      ['GET', `/schedules/${id}`],
      ['PUT', `/schedules/${id}`],
      ['DELETE', `/schedules/${id}`],
      ['GET', `/video/jobs/${id}`],
      ['GET', `/video/presign/${id}`],
    ];
    for (const [method, path] of operations) {
      const response = await apiClient(app.url).call<Problem>(method, path, { body: method === 'POST' || method === 'PUT' ? {} : undefined });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(response.body.type).toBe('/problems/unauthorized');
    }
  });

  it('when the key has expired, then it answers 401 saying so', async () => {
    const key = await issueKey({ expiresAt: new Date(Date.now() - 1000) });
    const response = await apiClient(app.url, key).get<Problem>('/projects');
    expect(response.status).toBe(401);
    expect(response.body.detail).toContain('expired');
  });

  it('when the key expires later, then it works until then', async () => {
    const key = await issueKey({ expiresAt: new Date(Date.now() + 60_000) });
    expect((await apiClient(app.url, key).get('/projects')).status).toBe(200);
  });

  it('when the key is inactive, then it answers 401 saying so', async () => {
    const key = await issueKey({ isActive: false });
    const response = await apiClient(app.url, key).get<Problem>('/projects');
    expect(response.status).toBe(401);
    expect(response.body.detail).toContain('inactive');
  });

  it('when an unauthenticated request also has an invalid body, then 401 wins over 400', async () => {
    const response = await apiClient(app.url).post<Problem>('/projects', { nonsense: true });
    expect(response.status).toBe(401);
  });

  it('when X-Workspace-Id names another workspace, then it is ignored and the key decides', async () => {
    const other = await createTestWorkspace(app, 'growth');
    const created = await other.client.post<{ id: string }>('/projects', { name: 'Other' });
    const response = await workspace.client.get(`/projects/${created.body.id}`, { headers: { 'x-workspace-id': other.id } });
    expect(response.status).toBe(404);
  });

  it('when a path is not part of the API, then it answers 404 with a problem body', async () => {
    const response = await workspace.client.get<Problem>('/nothing-here');
    expect(response.status).toBe(404);
    expect(response.body.type).toBe('/problems/not-found');
  });

  it('when a path exists but not the method, then it answers 405 with Allow', async () => {
    const response = await workspace.client.call<Problem>('PATCH', '/projects');
    expect(response.status).toBe(405);
    expect(response.body.type).toBe('/problems/method-not-allowed');
    expect(response.headers.get('allow')).toContain('GET');
  });
});

describe('rate limiting', () => {
  it('when a key makes more requests than its limit, then it answers 429 with Retry-After and other keys are unaffected', async () => {
    const limited = await createTestWorkspace(app, 'growth');
    const responses = [];
    for (let index = 0; index < 6; index += 1) responses.push(await limited.client.get<Problem>('/projects'));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 429]);
    const refused = responses[5]!;
    expect(refused.body.type).toBe('/problems/rate-limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-limit')).toBe('5');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');

    const fresh = await createTestWorkspace(app, 'growth');
    const response = await fresh.client.get('/projects');
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-remaining')).toBe('4');
  });
});

/** GET /api/v1/projects from another loopback address than the rest of the file uses (127.0.0.1). */
function getProjectsFrom(
  localAddress: string,
  key: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; retryAfter: string | undefined; body: Problem }> {
  const url = new URL(`${app.url}/api/v1/projects`);
  return new Promise((resolveResponse, reject) => {
    const outgoing = request(url, { localAddress, headers: { ...headers, authorization: `Bearer ${key}` } }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        resolveResponse({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'], body: JSON.parse(text) as Problem }),
      );
    });
    outgoing.on('error', reject).end();
  });
}

describe('failed authentication per client address', () => {
  it('when an address fails more often than the limit, then its refused keys answer 429 with Retry-After, and valid keys are still served from it and from other addresses', async () => {
    const valid = await createTestWorkspace(app, 'growth');
    const statuses = [];
    for (let attempt = 0; attempt < 11; attempt += 1) {
      statuses.push((await getProjectsFrom('127.0.0.2', `sk_${String(attempt).padStart(43, 'A')}`)).status);
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429]);

    const refused = await getProjectsFrom('127.0.0.2', `sk_${'Z'.repeat(43)}`);
    expect(refused.status).toBe(429);
    expect(refused.body.type).toBe('/problems/rate-limited');
    expect(refused.body.detail).toContain('failed authentications from this address (10 per 60 seconds)');
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);

    // A key that verifies is never refused for the failures of others sharing its address.
    expect((await getProjectsFrom('127.0.0.2', valid.key)).status).toBe(200);
    expect((await getProjectsFrom('127.0.0.3', valid.key)).status).toBe(200);
    expect((await valid.client.get('/projects')).status).toBe(200);
  });

  it('when no proxy hop is trusted (the default), then X-Forwarded-For is ignored and failures count against the address of the connection', async () => {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const response = await getProjectsFrom('127.0.0.7', `sk_${String(attempt).padStart(43, 'D')}`, { 'x-forwarded-for': `192.0.2.${attempt}` });
      expect(response.status).toBe(401);
    }
    expect((await getProjectsFrom('127.0.0.7', `sk_${'D'.repeat(43)}`, { 'x-forwarded-for': '192.0.2.200' })).status).toBe(429);
  });

  it('when 40 unknown keys arrive at once from one address, then exactly the limit of them answer 401 and the rest 429', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, attempt) => getProjectsFrom('127.0.0.5', `sk_${String(attempt).padStart(43, 'B')}`).then((response) => response.status)),
    );
    // Each failure is counted by one atomic statement, however many are in flight together.
    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(30);
  });

  it('when good keys are used many times from one address, then they never count towards its limit', async () => {
    const valid = await createTestWorkspace(app, 'growth');
    const other = await createTestWorkspace(app, 'growth');
    for (let attempt = 0; attempt < 4; attempt += 1) expect((await getProjectsFrom('127.0.0.6', valid.key)).status).toBe(200);
    for (let attempt = 0; attempt < 4; attempt += 1) expect((await getProjectsFrom('127.0.0.6', other.key)).status).toBe(200);
    for (let attempt = 0; attempt < 10; attempt += 1) expect((await getProjectsFrom('127.0.0.6', `sk_${String(attempt).padStart(43, 'C')}`)).status).toBe(401);
  });

  it('when requests carry no key or a malformed one, then they answer 401 and do not count as failures', async () => {
    const valid = await createTestWorkspace(app, 'growth');
    for (let attempt = 0; attempt < 12; attempt += 1) expect((await getProjectsFrom('127.0.0.4', 'not-a-key')).status).toBe(401);
    expect((await getProjectsFrom('127.0.0.4', valid.key)).status).toBe(200);
  });
});

describe('workspace rate limit', () => {
  it('when a workspace spreads requests over many keys, then its ceiling (5 times the per-key limit) answers 429 naming it', async () => {
    const minted = await createTestWorkspace(app, 'growth');
    const keys = [minted.key];
    for (let index = 0; index < 5; index += 1) keys.push(await issueKey({ workspaceId: minted.id }));
    const responses = [];
    for (let index = 0; index < 26; index += 1) responses.push(await apiClient(app.url, keys[index % keys.length]).get<Problem>('/projects'));
    expect(responses.slice(0, 25).map((response) => response.status)).toEqual(Array(25).fill(200));
    const refused = responses[25]!;
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toContain('25 requests per 60 seconds for this workspace');
    expect(refused.headers.get('ratelimit-limit')).toBe('25');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('lastUsedAt', () => {
  it('when a key is used, then the use is visible at once but written to the database only on flush', async () => {
    const user = await createTestWorkspace(app, 'growth');
    const before = Date.now();
    expect((await user.client.get('/projects')).status).toBe(200);

    const em = app.api.services.orm.em.fork();
    const stored = await em.findOneOrFail(ApiKey, { workspaceId: user.id });
    expect(stored.lastUsedAt).toBeNull();

    const listed = await user.client.get<Schemas['ApiKeyListItem'][]>('/api-keys');
    expect(Date.parse(listed.body[0]!.lastUsedAt!)).toBeGreaterThanOrEqual(before - 1000);

    await app.api.lastUsed.flush();
    const flushed = await app.api.services.orm.em.fork().findOneOrFail(ApiKey, { workspaceId: user.id });
    expect(flushed.lastUsedAt!.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });
});
