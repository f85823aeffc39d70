import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';

type Problem = Schemas['Problem'];
type BrandKit = Schemas['BrandKit'];

let app: TestApp;
let growth: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  ({ app, workspace: growth } = await startAppWithWorkspace());
  other = await createTestWorkspace(app, 'growth');
});
afterAll(() => app?.stop());

const fullKit = {
  name: 'Acme',
  colors: { primary: '#112233', secondary: '#AABBCC', accent: '#ff0000', neutral: '#eeeeee' },
  fonts: { heading: 'Inter', body: 'Merriweather' },
  logoUrl: 'https://cdn.example.com/logo.png',
};

describe('POST /brandkits', () => {
  it('when nested colours and fonts are sent, then they read back as JSON strings', async () => {
    const created = await growth.client.post<BrandKit>('/brandkits', fullKit);
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/v1/brandkits/${created.body.id}`);
    expect(created.body).toMatchObject({ id: expect.any(String), name: 'Acme', logoUrl: fullKit.logoUrl });
    expect(JSON.parse(created.body.colorsJson)).toEqual({ primary: '#112233', secondary: '#aabbcc', accent: '#ff0000', neutral: '#eeeeee' });
    expect(JSON.parse(created.body.fontsJson)).toEqual(fullKit.fonts);

    const read = await growth.client.get<BrandKit>(`/brandkits/${created.body.id}`);
    expect(read.body).toEqual(created.body);
  });

  it('when only a name is sent, then colours and fonts are empty objects', async () => {
    const created = await growth.client.post<BrandKit>('/brandkits', { name: 'Plain' });
    expect(created.body).toMatchObject({ colorsJson: '{}', fontsJson: '{}', logoUrl: null });
  });

  it.each([
    ['no name', { colors: {} }, '/name'],
    ['a colour that is not hex', { name: 'x', colors: { primary: 'blue' } }, '/colors/primary'],
    ['an unknown colour role', { name: 'x', colors: { background: '#000000' } }, '/colors/background'],
    ['an unknown font role', { name: 'x', fonts: { caption: 'Inter' } }, '/fonts/caption'],
    ['a logo that is not https', { name: 'x', logoUrl: 'http://example.com/logo.png' }, '/logoUrl'],
    ['a logo that is not a URL', { name: 'x', logoUrl: 'logo' }, '/logoUrl'],
  ])('when the body has %s, then it answers 400 naming the member', async (_case, body, path) => {
    const response = await growth.client.post<Problem>('/brandkits', body);
    expect(response.status).toBe(400);
    expect(response.body.errors?.map((error) => error.path)).toContain(path);
  });

  it('when a Starter workspace creates a second brand kit, then it answers 403 naming the limit', async () => {
    const starter = await createTestWorkspace(app, 'starter');
    expect((await starter.client.post('/brandkits', { name: 'First' })).status).toBe(201);
    const refused = await starter.client.post<Problem>('/brandkits', { name: 'Second' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ type: '/problems/plan-limit-reached', quota: { name: 'brandKits', plan: 'starter', limit: 1 } });
    expect((await starter.client.get<BrandKit[]>('/brandkits')).body).toHaveLength(1);
  });
});

describe('GET /brandkits', () => {
  it('when the workspace has kits, then only its own are listed, newest first, paged', async () => {
    const workspace = await createTestWorkspace(app, 'growth');
    for (const name of ['One', 'Two', 'Three']) await workspace.client.post('/brandkits', { name });
    await other.client.post('/brandkits', { name: 'Foreign' });
    const page = await workspace.client.get<BrandKit[]>('/brandkits?pageSize=2');
    expect(page.body.map((kit) => kit.name)).toEqual(['Three', 'Two']);
    expect(page.headers.get('link')).toContain('rel="next"');
    const rest = await workspace.client.get<BrandKit[]>('/brandkits?pageSize=2&page=2');
    expect(rest.body.map((kit) => kit.name)).toEqual(['One']);
    expect(rest.headers.get('link')).not.toContain('rel="next"');
  });
});

describe('PUT and DELETE /brandkits/{id}', () => {
  it('when colours are updated, then the whole colours object is replaced', async () => {
    const created = await growth.client.post<BrandKit>('/brandkits', fullKit);
    const updated = await growth.client.put<BrandKit>(`/brandkits/${created.body.id}`, {
      name: 'Acme 2',
      colors: { accent: '#000000' },
      logoUrl: null,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.body.id, name: 'Acme 2', colorsJson: '{"accent":"#000000"}', logoUrl: null });
    expect(JSON.parse(updated.body.fontsJson)).toEqual(fullKit.fonts);
  });

  it('when deleted, then it is gone', async () => {
    const created = await growth.client.post<BrandKit>('/brandkits', { name: 'Short-lived' });
    expect((await growth.client.delete(`/brandkits/${created.body.id}`)).status).toBe(204);
    expect((await growth.client.get(`/brandkits/${created.body.id}`)).status).toBe(404);
  });

  it('when the id belongs to another workspace, then get, update and delete answer 404', async () => {
    const theirs = await other.client.post<BrandKit>('/brandkits', { name: 'Theirs' });
    expect((await growth.client.get(`/brandkits/${theirs.body.id}`)).status).toBe(404);
    expect((await growth.client.put(`/brandkits/${theirs.body.id}`, { name: 'Mine now' })).status).toBe(404);
    expect((await growth.client.delete(`/brandkits/${theirs.body.id}`)).status).toBe(404);
    expect((await other.client.get<BrandKit>(`/brandkits/${theirs.body.id}`)).body.name).toBe('Theirs');
  });

  it('when the update is empty, then it answers 400', async () => {
    const created = await growth.client.post<BrandKit>('/brandkits', { name: 'Kit' });
    expect((await growth.client.put(`/brandkits/${created.body.id}`, {})).status).toBe(400);
  });
});
