import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';

type Problem = Schemas['Problem'];
type PostItem = Schemas['PostListItem'];

let app: TestApp;
let workspace: TestWorkspace;
let other: TestWorkspace;
let projectId: string;

beforeAll(async () => {
  ({ app, workspace, projectId } = await startAppWithWorkspace({ project: 'Posts' }));
  other = await createTestWorkspace(app, 'growth');
});
afterAll(() => app?.stop());

async function createPost(body: Record<string, unknown> = {}, client = workspace.client, project = projectId) {
  const response = await client.post<Schemas['CreatePostResponse']>('/posts', {
    title: 'Launch day',
    prompt: 'A rocket over a city at dawn',
    projectId: project,
    ...body,
  });
  expect(response.status).toBe(201);
  return response.body;
}

describe('POST /posts', () => {
  it('when the body is valid, then a draft post without an image is created', async () => {
    const kit = await workspace.client.post<{ id: string }>('/brandkits', { name: 'Kit' });
    const response = await workspace.client.post<Schemas['CreatePostResponse']>('/posts', {
      title: 'Hello',
      prompt: 'Sunrise',
      projectId,
      brandKitId: kit.body.id,
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`/api/v1/posts/${response.body.id}`);
    expect(response.body).toEqual({ id: expect.any(String), title: 'Hello', status: 'draft', imageUrl: null, hasVideo: false, createdAt: expect.any(String) });
    const full = await workspace.client.get<Schemas['Post']>(`/posts/${response.body.id}`);
    expect(full.body).toEqual({
      id: response.body.id,
      workspaceId: workspace.id,
      projectId,
      title: 'Hello',
      prompt: 'Sunrise',
      status: 'draft',
      imageUrl: null,
      hasVideo: false,
      format: '1:1',
      brandKitId: kit.body.id,
      scheduledAt: null,
      publishedAt: null,
      failureReason: null,
      createdAt: response.body.createdAt,
      updatedAt: expect.any(String),
    });
  });

  it.each([
    ['a title over 200 characters', { title: 'x'.repeat(201) }, '/title'],
    ['a prompt over 5000 characters', { prompt: 'x'.repeat(5001) }, '/prompt'],
    ['an empty title', { title: '' }, '/title'],
    ['a projectId that is not a uuid', { projectId: 'nope' }, '/projectId'],
    ['an unknown member', { mood: 'happy' }, '/mood'],
  ])('when the body has %s, then it answers 400 naming the member', async (_case, body, path) => {
    const response = await workspace.client.post<Problem>('/posts', { title: 'T', prompt: 'P', projectId, ...body });
    expect(response.status).toBe(400);
    expect(response.body.errors?.map((error) => error.path)).toContain(path);
  });

  it('when the project or brand kit belongs to another workspace, then it answers 404 naming it', async () => {
    const theirProject = (await other.client.post<{ id: string }>('/projects', { name: 'Theirs' })).body.id;
    const theirKit = (await other.client.post<{ id: string }>('/brandkits', { name: 'Theirs' })).body.id;
    const project = await workspace.client.post<Problem>('/posts', { title: 'T', prompt: 'P', projectId: theirProject });
    expect(project.status).toBe(404);
    expect(project.body.detail).toContain(theirProject);
    const kit = await workspace.client.post<Problem>('/posts', { title: 'T', prompt: 'P', projectId, brandKitId: theirKit });
    expect(kit.status).toBe(404);
    expect(kit.body.detail).toContain(theirKit);
  });

  it('when the project is archived, then it answers 409', async () => {
    const archived = (await workspace.client.post<{ id: string }>('/projects', { name: 'Old' })).body.id;
    await workspace.client.put(`/projects/${archived}`, { status: 'archived' });
    const response = await workspace.client.post<Problem>('/posts', { title: 'T', prompt: 'P', projectId: archived });
    expect(response.status).toBe(409);
    expect(response.body.type).toBe('/problems/conflict');
  });
});

describe('GET /posts and GET /posts/project/{projectId}', () => {
  it('when listed, then posts come newest first, filtered by status, paged by number and by cursor', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const project = (await own.client.post<{ id: string }>('/projects', { name: 'List' })).body.id;
    const ids = [];
    for (let index = 0; index < 5; index += 1) ids.push((await createPost({ title: `Post ${index}` }, own.client, project)).id);
    await own.client.put(`/posts/${ids[0]}`, { status: 'failed' });

    const first = await own.client.get<PostItem[]>('/posts?pageSize=2');
    expect(first.status).toBe(200);
    expect(first.body.map((post) => post.title)).toEqual(['Post 4', 'Post 3']);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toMatch(/^\/api\/v1\/posts\?pageSize=2&cursor=/);

    const second = await own.client.get<PostItem[]>(next!.replace('/api/v1', ''));
    expect(second.body.map((post) => post.title)).toEqual(['Post 2', 'Post 1']);
    const byNumber = await own.client.get<PostItem[]>('/posts?pageSize=2&page=2');
    expect(byNumber.body.map((post) => post.id)).toEqual(second.body.map((post) => post.id));
    expect(byNumber.headers.get('link')).toContain('rel="prev"');

    const last = await own.client.get<PostItem[]>('/posts?pageSize=2&page=3');
    expect(last.body.map((post) => post.title)).toEqual(['Post 0']);
    expect(last.headers.get('link')).not.toContain('rel="next"');
    // A page that holds exactly the rest has no next page; a page past the end is empty and links back.
    const whole = await own.client.get<PostItem[]>('/posts?pageSize=5');
    expect(whole.body.map((post) => post.id)).toEqual([...ids].reverse());
    expect(whole.headers.get('link')).toBeNull();
    const beyond = await own.client.get<PostItem[]>('/posts?pageSize=2&page=4');
    expect(beyond.body).toEqual([]);
    expect(beyond.headers.get('link')).toBe('</api/v1/posts?pageSize=2&page=3>; rel="prev"');

    const failed = await own.client.get<PostItem[]>('/posts?status=failed');
    expect(failed.body.map((post) => post.id)).toEqual([ids[0]]);

    const inProject = await own.client.get<PostItem[]>(`/posts/project/${project}?status=draft`);
    expect(inProject.body).toHaveLength(4);
    expect(inProject.body[0]).toEqual({
      id: ids[4],
      workspaceId: own.id,
      projectId: project,
      title: 'Post 4',
      prompt: 'A rocket over a city at dawn',
      status: 'draft',
      imageUrl: null,
      hasVideo: false,
      format: '1:1',
      createdAt: expect.any(String),
    });
  });

  it('when another workspace has posts, then neither list shows them and its project answers 404', async () => {
    const theirProject = (await other.client.post<{ id: string }>('/projects', { name: 'Theirs' })).body.id;
    const theirs = await createPost({}, other.client, theirProject);
    const listed = await workspace.client.get<PostItem[]>('/posts?pageSize=100');
    expect(listed.body.map((post) => post.id)).not.toContain(theirs.id);
    expect((await workspace.client.get(`/posts/project/${theirProject}`)).status).toBe(404);
  });

  it.each([
    ['status=archived', 'status'],
    ['pageSize=101', 'pageSize'],
    ['cursor=not-a-cursor', 'cursor'],
  ])('when the query has %s, then it answers 400 naming the parameter', async (query, name) => {
    const response = await workspace.client.get<Problem>(`/posts?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]).toMatchObject({ location: 'query' });
    expect(JSON.stringify(response.body.errors)).toContain(name);
  });
});

describe('PUT and DELETE /posts/{id}', () => {
  it('when a subset is updated, then only it changes and updatedAt moves', async () => {
    const post = await createPost();
    const before = await workspace.client.get<Schemas['Post']>(`/posts/${post.id}`);
    const kit = await workspace.client.post<{ id: string }>('/brandkits', { name: 'Another kit' });
    const updated = await workspace.client.put<Schemas['UpdatePostResponse']>(`/posts/${post.id}`, {
      title: 'New title',
      status: 'scheduled',
      scheduledAt: '2030-01-01T09:00:00Z',
      brandKitId: kit.body.id,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ id: post.id, title: 'New title', status: 'scheduled', updatedAt: expect.any(String) });
    expect(Date.parse(updated.body.updatedAt)).toBeGreaterThan(Date.parse(before.body.updatedAt));
    const after = await workspace.client.get<Schemas['Post']>(`/posts/${post.id}`);
    expect(after.body).toMatchObject({ title: 'New title', prompt: before.body.prompt, scheduledAt: '2030-01-01T09:00:00.000Z', brandKitId: kit.body.id });

    await workspace.client.put(`/posts/${post.id}`, { brandKitId: null, scheduledAt: null });
    expect((await workspace.client.get<Schemas['Post']>(`/posts/${post.id}`)).body).toMatchObject({ brandKitId: null, scheduledAt: null });
  });

  it('when the update is invalid, then it answers 400 and changes nothing', async () => {
    const post = await createPost();
    for (const body of [{}, { status: 'deleted' }, { scheduledAt: 'tomorrow' }, { title: 'x'.repeat(201) }]) {
      expect((await workspace.client.put(`/posts/${post.id}`, body)).status).toBe(400);
    }
    expect((await workspace.client.get<Schemas['Post']>(`/posts/${post.id}`)).body.title).toBe('Launch day');
  });

  it('when the post belongs to another workspace, then get, update, delete and its sub-resources answer 404', async () => {
    const theirProject = (await other.client.post<{ id: string }>('/projects', { name: 'Theirs' })).body.id;
    const theirs = await createPost({}, other.client, theirProject);
    for (const response of [
      await workspace.client.get(`/posts/${theirs.id}`),
      await workspace.client.put(`/posts/${theirs.id}`, { title: 'Mine' }),
      await workspace.client.post(`/posts/${theirs.id}/generate`, {}),
      await workspace.client.post(`/posts/${theirs.id}/render`),
      await workspace.client.get(`/posts/${theirs.id}/versions`),
      await workspace.client.get(`/posts/${theirs.id}/download`),
      await workspace.client.delete(`/posts/${theirs.id}`),
    ]) {
      expect(response.status).toBe(404);
    }
    expect((await other.client.get<Schemas['Post']>(`/posts/${theirs.id}`)).body.title).toBe('Launch day');
  });

  it('when deleted, then it answers 204 and the post is gone', async () => {
    const post = await createPost();
    expect((await workspace.client.delete(`/posts/${post.id}`)).status).toBe(204);
    expect((await workspace.client.get(`/posts/${post.id}`)).status).toBe(404);
  });
});
