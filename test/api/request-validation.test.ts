import { randomUUID } from 'node:crypto';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { specPath } from '../../src/api/app.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// Inputs a hostile or careless client sends, each of which once answered 500 or was stored and broke something
// later. Every one must be a 400 naming the field, and leave nothing behind.

let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
let postId: string;

beforeAll(async () => {
  ({ app, workspace, projectId } = await startAppWithWorkspace({ project: 'Hostile' }));
  postId = (await workspace.client.post<{ id: string }>('/posts', { title: 'Draft', prompt: 'A lake', projectId })).body.id;
});
afterAll(() => app?.stop());

function expectFieldError(response: { status: number; body: unknown }, location: string, path: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  const problem = response.body as Schemas['Problem'];
  expect(problem.type).toBe('/problems/validation-failed');
  expect(problem.errors).toContainEqual(expect.objectContaining({ location, path }));
}

describe('a string PostgreSQL cannot store as text', () => {
  it('when it is in a project name, a post title or a brand kit font, then 400 names the field and nothing is stored', async () => {
    expectFieldError(await workspace.client.post('/projects', { name: 'a\u0000b' }), 'body', '/name');
    expectFieldError(await workspace.client.post('/posts', { title: 'a\u0000b', prompt: 'p', projectId }), 'body', '/title');
    expectFieldError(await workspace.client.put(`/posts/${postId}`, { prompt: 'x\u0000' }), 'body', '/prompt');
    expectFieldError(await workspace.client.post('/brandkits', { name: 'Kit', fonts: { heading: 'Inter\u0000' } }), 'body', '/fonts/heading');
    // An unpaired surrogate would be stored as U+FFFD: not what the client sent.
    expectFieldError(await workspace.client.post('/projects', { name: 'a\ud800b' }), 'body', '/name');
    const projects = (await workspace.client.get<Array<{ name: string }>>('/projects')).body;
    expect(projects.map((project) => project.name)).toEqual(['Hostile']);
  });
});

describe('a date-time that matches the pattern but is no date', () => {
  it.each([
    ['month 13', '2030-13-01T00:00:00Z'],
    ['29 o’clock', '2030-01-01T29:00:00Z'],
    ['year zero', '0000-01-01T00:00:00Z'],
    ['30 February', '2030-02-30T00:00:00Z'],
  ])('when it has %s, then every date field answers 400 naming it', async (_what, value) => {
    expectFieldError(await workspace.client.post('/api-keys', { name: 'k', expiresAt: value }), 'body', '/expiresAt');
    expectFieldError(await workspace.client.put(`/posts/${postId}`, { scheduledAt: value }), 'body', '/scheduledAt');
    expectFieldError(await workspace.client.post(`/posts/${postId}/schedule`, { scheduledAt: value }), 'body', '/scheduledAt');
    const post = (await workspace.client.get<Schemas['Post']>(`/posts/${postId}`)).body;
    expect(post).toMatchObject({ status: 'draft', scheduledAt: null });
  });

  it('when a real date with an offset is sent, then it is accepted', async () => {
    expect((await workspace.client.put(`/posts/${postId}`, { scheduledAt: '2030-06-01T10:00:00.5+02:00' })).status).toBe(200);
    expect((await workspace.client.get<Schemas['Post']>(`/posts/${postId}`)).body.scheduledAt).toBe('2030-06-01T08:00:00.500Z');
    expect((await workspace.client.put(`/posts/${postId}`, { scheduledAt: null })).status).toBe(200);
  });
});

describe('paging', () => {
  const lists = listOperations();

  it('when page is beyond its maximum on any list, then 400 names page', async () => {
    expect(lists.length).toBeGreaterThanOrEqual(10);
    for (const path of lists) {
      const response = await workspace.client.get(`${path}?page=100000000000000000000`);
      expectFieldError(response, 'query', 'page');
    }
  });

  it('when a forged cursor names a date and 36 dashes, then 400 names cursor', async () => {
    const forged = Buffer.from(`2026-01-01T00:00:00.000Z|${'-'.repeat(36)}`).toString('base64url');
    expectFieldError(await workspace.client.get(`/posts?cursor=${forged}`), 'query', 'cursor');
    const impossibleDate = Buffer.from(`2026-13-01T00:00:00.000Z|${randomUUID()}`).toString('base64url');
    expectFieldError(await workspace.client.get(`/posts?cursor=${impossibleDate}`), 'query', 'cursor');
    expectFieldError(await workspace.client.get('/posts?cursor=not%20base64'), 'query', 'cursor');
  });
});

describe('URLs', () => {
  it('when a webhook URL has no host, then 400 names url and no webhook is stored', async () => {
    expectFieldError(await workspace.client.post('/webhooks', { url: 'https://', events: 'post.published' }), 'body', '/url');
    expectFieldError(await workspace.client.post('/webhooks', { url: 'https://exa mple.com/', events: 'post.published' }), 'body', '/url');
    expect((await workspace.client.get<unknown[]>('/webhooks')).body).toEqual([]);
  });

  it('when a brand kit logo URL has a control character for a host, then 400 names logoUrl', async () => {
    expectFieldError(await workspace.client.post('/brandkits', { name: 'Kit', logoUrl: 'https://\u0084' }), 'body', '/logoUrl');
    expect((await workspace.client.get<unknown[]>('/brandkits')).body).toEqual([]);
  });
});

describe('webhook secrets', () => {
  it('when the secret is short, as the specification allows, then the webhook is created', async () => {
    const created = await workspace.client.post<{ id: string }>('/webhooks', {
      url: 'https://example.com/hook',
      events: 'post.published',
      secret: 'shh-secret',
    });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty('secret');
    expect((await workspace.client.delete(`/webhooks/${created.body.id}`)).status).toBe(204);
  });

  it('when the secret is empty or over 1024 characters, then 400 names secret', async () => {
    expectFieldError(await workspace.client.post('/webhooks', { url: 'https://example.com/hook', events: 'post.published', secret: '' }), 'body', '/secret');
    expectFieldError(
      await workspace.client.post('/webhooks', { url: 'https://example.com/hook', events: 'post.published', secret: 'x'.repeat(1025) }),
      'body',
      '/secret',
    );
  });
});

describe('schedules', () => {
  it.each(['0 0 L * *', '5L * * * *', 'H * * * *', '0 0 1W * *'])(
    'when the cron is "%s" (an extension Temporal refuses), then 400 names cronExpression',
    async (cronExpression) => {
      expectFieldError(await workspace.client.post('/schedules', { name: 'Daily', cronExpression }), 'body', '/cronExpression');
    },
  );

  it('when a prompt template names an inherited property, then 400 names promptTemplate', async () => {
    for (const promptTemplate of ['{{constructor}}', '{{toString}}', '{{hasOwnProperty}}']) {
      expectFieldError(await workspace.client.post('/schedules', { name: 'Daily', cronExpression: '0 9 * * *', promptTemplate }), 'body', '/promptTemplate');
    }
    expect((await workspace.client.get<unknown[]>('/schedules')).body).toEqual([]);
  });
});

describe('ids', () => {
  it('when a path id is a URN UUID, then 400 names it instead of reaching the database', async () => {
    expectFieldError(await workspace.client.get(`/projects/urn:uuid:${randomUUID()}`), 'path', 'id');
  });
});

/** Every list operation of openapi.yaml (those taking `page`), with any path id filled in. */
function listOperations(): string[] {
  const spec = parse(readFileSync(specPath, 'utf8')) as { paths: Record<string, Record<string, { parameters?: Array<{ $ref?: string }> }>> };
  return Object.entries(spec.paths)
    .filter(([, item]) => item.get?.parameters?.some((parameter) => parameter.$ref === '#/components/parameters/Page'))
    .map(([path]) => path.replace(/\{[^}]+\}/g, randomUUID()));
}
