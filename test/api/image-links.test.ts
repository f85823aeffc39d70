import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Post } from '../../src/adapters/database/entities/post.ts';
import type { Schemas } from '../../src/api/schemas.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import { fetchImage } from '../support/images.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// The lasting image links Nostr notes carry (`GET /images/{token}`, outside /api/v1): the real api, its storage and
// its failed-authentication budget (three per window here).

let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;

beforeAll(async () => {
  ({ app, workspace, projectId } = await startAppWithWorkspace({ env: { RATE_LIMIT_AUTH_FAILURES: '3', RATE_LIMIT_WINDOW_SECONDS: '600' }, project: 'Links' }));
});
afterAll(async () => {
  await app?.stop();
});

/** A generated post's image key, as stored. */
async function newImageKey(): Promise<string> {
  const id = (await workspace.client.post<{ id: string }>('/posts', { title: 'Harbour', prompt: 'A harbour at dawn', projectId })).body.id;
  expect((await workspace.client.post(`/posts/${id}/generate`)).status).toBe(200);
  const post = await app.api.services.orm.em.fork().findOneOrFail(Post, id);
  return post.imageKey!;
}

/** A GET with no API key, the redirect not followed. */
function visit(url: string): Promise<Response> {
  return fetch(url, { redirect: 'manual' });
}

describe('lasting image links', () => {
  it('when a link is fetched without an API key, then it redirects, cacheably, to the stored image, and is the same link every time', async () => {
    const key = await newImageKey();
    const link = app.api.services.imageLinks.linkTo(key);
    expect(link).toMatch(/^http:\/\/localhost:\d+\/images\/[\w-]{66}\.[\w-]{22}\.png$/);
    expect(app.api.services.imageLinks.linkTo(key)).toBe(link);

    const answer = await visit(link);
    expect(answer.status).toBe(302);
    expect(answer.headers.get('cache-control')).toBe('public, max-age=300');
    const stored = await app.storage.get(key);
    const bytes = Buffer.from(await new Response(stored!.body as unknown as ReadableStream).arrayBuffer());
    expect((await fetchImage(answer.headers.get('location')!)).bytes).toEqual(bytes);
    expect((await fetchImage(link)).bytes).toEqual(bytes);
  });

  it('when a link is fetched again within its cache lifetime, then the api answers the same redirect without reading the storage', async () => {
    const key = await newImageKey();
    const link = app.api.services.imageLinks.linkTo(key);
    const first = await visit(link);
    expect(first.status).toBe(302);
    // Gone from the storage now: only an answer that reads the storage again could tell (as a cache in front
    // of the api would not either, for as long as the redirect is public).
    await app.storage.delete(key);
    const again = await visit(link);
    expect(again.status).toBe(302);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('cache-control')).toBe('public, max-age=300');
  });

  it('when the image is gone (its post deleted and its objects purged), then its link answers 404', async () => {
    const key = await newImageKey();
    const link = app.api.services.imageLinks.linkTo(key);
    await app.storage.delete(key);
    const answer = await visit(link);
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as Schemas['Problem']).detail).toContain('no longer exists');
  });

  it('when a token is forged or garbled, then it answers 404, and past the address budget 429, while a valid link still redirects', async () => {
    const key = await newImageKey();
    const link = app.api.services.imageLinks.linkTo(key);
    const [payload, signature, extension] = new URL(link).pathname.slice('/images/'.length).split('.') as [string, string, string];
    const otherKey = Buffer.concat([Buffer.from([0xff]), Buffer.from(key.replace(/\.png$/, '-other.png'))]).toString('base64url');
    const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    for (const token of [`${otherKey}.${signature}.${extension}`, `${payload}.${flipped}.${extension}`, 'not-a-token']) {
      const answer = await visit(`${app.url}/images/${token}`);
      expect(answer.status, token).toBe(404);
      expect(((await answer.json()) as Schemas['Problem']).detail).toBe('This image link is not valid.');
    }
    const refused = await visit(`${app.url}/images/${payload}.${signature}.jpg`);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await visit(link)).status).toBe(302);
  });
});
