import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';

type Problem = Schemas['Problem'];

let app: TestApp;
let growth: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  ({ app, workspace: growth } = await startAppWithWorkspace());
  other = await createTestWorkspace(app, 'growth', 'other workspace');
});
afterAll(() => app?.stop());

async function createProject(workspace: TestWorkspace, body: Record<string, unknown> = {}) {
  const response = await workspace.client.post<Schemas['CreateProjectResponse']>('/projects', { name: 'Spring launch', ...body });
  expect(response.status).toBe(201);
  return response.body;
}

describe('POST /projects', () => {
  it('when the body is valid, then it creates an active project and answers 201 with a Location', async () => {
    const response = await growth.client.post<Schemas['CreateProjectResponse']>('/projects', {
      name: 'Autumn',
      description: 'Leaves and lattes',
      icon: '🍂',
      color: '#AA3300',
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ id: expect.any(String), name: 'Autumn', status: 'active', createdAt: expect.any(String) });
    expect(response.headers.get('location')).toBe(`/api/v1/projects/${response.body.id}`);

    const read = await growth.client.get<Schemas['Project']>(`/projects/${response.body.id}`);
    expect(read.body).toMatchObject({ description: 'Leaves and lattes', icon: '🍂', color: '#aa3300', coverUrl: null });
  });

  it.each([
    ['a missing name', {}, '/name'],
    ['an empty name', { name: '' }, '/name'],
    ['a name over 100 characters', { name: 'x'.repeat(101) }, '/name'],
    ['a colour that is not #rrggbb', { name: 'a', color: 'red' }, '/color'],
    ['an unknown member', { name: 'a', owner: 'me' }, '/owner'],
    ['an icon that is not an emoji', { name: 'a', icon: 'AB' }, '/icon'],
    ['two emoji as icon', { name: 'a', icon: '🍂🍂' }, '/icon'],
  ])('when the body has %s, then it answers 400 naming the member', async (_case, body, path) => {
    const response = await growth.client.post<Problem>('/projects', body);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.type).toBe('/problems/validation-failed');
    expect(response.body.errors?.map((error) => error.path)).toContain(path);
  });

  it('when the body is not JSON, then it answers 400 malformed-request', async () => {
    const response = await growth.client.post<Problem>('/projects', '{"name": ', { headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('/problems/malformed-request');
  });

  it('when the JSON body is over 256 KB, then it answers 413', async () => {
    const response = await growth.client.post<Problem>('/projects', { name: 'big', description: 'x'.repeat(300 * 1024) });
    expect(response.status).toBe(413);
    expect(response.body.type).toBe('/problems/payload-too-large');
  });

  it('when the body is not JSON but text, then it answers 415', async () => {
    const response = await growth.client.post<Problem>('/projects', 'name=x', { headers: { 'content-type': 'text/plain' } });
    expect(response.status).toBe(415);
    expect(response.body.type).toBe('/problems/unsupported-media-type');
  });

  it('when an emoji sequence is the icon, then it is accepted as one emoji', async () => {
    const response = await growth.client.post('/projects', { name: 'Family', icon: '👩‍👩‍👧' });
    expect(response.status).toBe(201);
  });
});

describe('Starter quota of 3 active projects', () => {
  it('when a fourth active project is created, then it answers 403 naming the limit, and archiving frees a slot', async () => {
    const starter = await createTestWorkspace(app, 'starter');
    const ids = [];
    for (let index = 0; index < 3; index += 1) ids.push((await createProject(starter, { name: `P${index}` })).id);

    const refused = await starter.client.post<Problem>('/projects', { name: 'One too many' });
    expect(refused.status).toBe(403);
    expect(refused.body.type).toBe('/problems/plan-limit-reached');
    expect(refused.body.quota).toEqual({ name: 'activeProjects', plan: 'starter', limit: 3 });
    expect(refused.body.detail).toContain('3 active projects');

    expect((await starter.client.put(`/projects/${ids[0]}`, { status: 'archived' })).status).toBe(200);
    const fourth = await createProject(starter, { name: 'Fits now' });

    const reactivate = await starter.client.put<Problem>(`/projects/${ids[0]}`, { status: 'active' });
    expect(reactivate.status).toBe(403);
    expect(reactivate.body.type).toBe('/problems/plan-limit-reached');

    const listed = await starter.client.get<Schemas['ProjectListItem'][]>('/projects?status=active');
    expect(listed.body.map((project) => project.id).sort()).toEqual([ids[1], ids[2], fourth.id].sort());
  });

  it('when many creates race, then still no more than 3 become active', async () => {
    const starter = await createTestWorkspace(app, 'starter');
    const responses = await Promise.all(Array.from({ length: 6 }, (_, index) => starter.client.post('/projects', { name: `R${index}` })));
    expect(responses.filter((response) => response.status === 201)).toHaveLength(3);
    expect(responses.filter((response) => response.status === 403)).toHaveLength(3);
  });
});

describe('GET /projects', () => {
  it('when filtered by status and paged, then it answers newest first with Link headers', async () => {
    const workspace = await createTestWorkspace(app, 'growth');
    const created = [];
    for (let index = 0; index < 5; index += 1) created.push(await createProject(workspace, { name: `Page ${index}` }));
    await workspace.client.put(`/projects/${created[0]!.id}`, { status: 'archived' });

    const first = await workspace.client.get<Schemas['ProjectListItem'][]>('/projects?status=active&pageSize=2');
    expect(first.status).toBe(200);
    expect(first.body.map((project) => project.name)).toEqual(['Page 4', 'Page 3']);
    expect(first.headers.get('link')).toBe('</api/v1/projects?status=active&pageSize=2&page=2>; rel="next"');

    const last = await workspace.client.get<Schemas['ProjectListItem'][]>('/projects?status=active&pageSize=2&page=2');
    expect(last.body.map((project) => project.name)).toEqual(['Page 2', 'Page 1']);
    expect(last.headers.get('link')).toBe('</api/v1/projects?status=active&pageSize=2&page=1>; rel="prev"');

    const archived = await workspace.client.get<Schemas['ProjectListItem'][]>('/projects?status=archived');
    expect(archived.body).toEqual([expect.objectContaining({ id: created[0]!.id, status: 'archived' })]);
  });

  it.each([
    ['status=deleted', '/status'],
    ['pageSize=101', 'pageSize'],
    ['page=0', 'page'],
    ['sort=name', 'sort'],
  ])('when the query has %s, then it answers 400 naming the parameter', async (query, name) => {
    const response = await growth.client.get<Problem>(`/projects?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]).toMatchObject({ location: 'query' });
    expect(JSON.stringify(response.body.errors)).toContain(name.replace('/', ''));
  });

  it('when another workspace has projects, then they are not listed', async () => {
    const mine = await createProject(growth, { name: 'Mine' });
    const theirs = await createProject(other, { name: 'Theirs' });
    const ids = (await growth.client.get<Schemas['ProjectListItem'][]>('/projects?pageSize=100')).body.map((project) => project.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
  });
});

describe('GET, PUT and DELETE /projects/{id}', () => {
  it('when the project exists, then get, update and delete work and a deleted project answers 404', async () => {
    const project = await createProject(growth, { name: 'Lifecycle' });

    const updated = await growth.client.put<Schemas['UpdateProjectResponse']>(`/projects/${project.id}`, {
      name: 'Renamed',
      description: null,
      icon: '🚀',
      color: '#00ff00',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ id: project.id, name: 'Renamed', status: 'active' });
    const read = await growth.client.get<Schemas['Project']>(`/projects/${project.id}`);
    expect(read.body).toMatchObject({ name: 'Renamed', description: null, icon: '🚀', color: '#00ff00' });

    const deleted = await growth.client.delete(`/projects/${project.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe('');
    expect((await growth.client.get(`/projects/${project.id}`)).status).toBe(404);
    expect((await growth.client.delete(`/projects/${project.id}`)).status).toBe(404);
  });

  it('when the id belongs to another workspace, then every operation answers 404 and changes nothing', async () => {
    const theirs = await createProject(other, { name: 'Not yours' });
    for (const response of [
      await growth.client.get<Problem>(`/projects/${theirs.id}`),
      await growth.client.put<Problem>(`/projects/${theirs.id}`, { name: 'Hijacked' }),
      await growth.client.delete<Problem>(`/projects/${theirs.id}/cover`),
      await growth.client.delete<Problem>(`/projects/${theirs.id}`),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.type).toBe('/problems/not-found');
    }
    expect((await other.client.get<Schemas['Project']>(`/projects/${theirs.id}`)).body.name).toBe('Not yours');
  });

  it('when the id is not a uuid, then it answers 400 naming the path parameter', async () => {
    const response = await growth.client.get<Problem>('/projects/not-a-uuid');
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([expect.objectContaining({ location: 'path', path: 'id' })]);
  });

  it('when the update is empty or invalid, then it answers 400', async () => {
    const project = await createProject(growth);
    expect((await growth.client.put(`/projects/${project.id}`, {})).status).toBe(400);
    expect((await growth.client.put(`/projects/${project.id}`, { status: 'deleted' })).status).toBe(400);
    expect((await growth.client.put(`/projects/${project.id}`, { icon: 'nope' })).status).toBe(400);
  });
});
