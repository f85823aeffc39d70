import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { Post } from '../../src/adapters/database/entities/post.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { eventually } from '../support/eventually.ts';
import { fetchImage, makeImage } from '../support/images.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';
import { startHttpsServer } from '../fakes/https-server.ts';

// Generation, render, versions, restore, download and usage through the API, with the local image provider and
// the real worker on the Temporal dev server. The brand logo comes from an HTTPS server on loopback.

type Problem = Schemas['Problem'];
type Generated = Schemas['GeneratePostResponse'];

let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
let logoServer: Awaited<ReturnType<typeof startHttpsServer>>;

beforeAll(async () => {
  const logo = await makeImage('png', '#ff00aa', 200);
  logoServer = await startHttpsServer((req, res) => {
    if (req.url === '/logo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(logo);
    else res.writeHead(404).end();
  });
  ({ app, workspace, projectId } = await startAppWithWorkspace({ env: { LOGO_FETCH_ALLOW_PRIVATE_NETWORKS: 'true' }, project: 'Generated' }));
});
afterAll(async () => {
  await app?.stop();
  await logoServer?.close();
});

async function newPost(body: Record<string, unknown> = {}): Promise<string> {
  return (await workspace.client.post<{ id: string }>('/posts', { title: 'Autumn sale', prompt: 'Falling leaves in warm light', projectId, ...body })).body.id;
}

async function generate(postId: string, body: Record<string, unknown> = {}) {
  const response = await workspace.client.post<Generated>(`/posts/${postId}/generate`, body);
  expect(response.status).toBe(200);
  return response.body;
}

describe('POST /posts/{id}/generate', () => {
  it('when called without a body, then a 1080×1080 image is generated from the post prompt and respond says how', async () => {
    const postId = await newPost();
    const response = await workspace.client.post<Generated>(`/posts/${postId}/generate`);
    expect(response.status).toBe(200);
    expect(response.body.post).toEqual({ id: postId, status: 'draft', imageUrl: expect.any(String), hasVideo: false, updatedAt: expect.any(String) });
    expect(response.body.respond).toContain('1080×1080 (1:1)');
    expect(response.body.respond).toContain('local renderer');
    expect(response.body.respond).toContain('"Falling leaves in warm light"');
    expect(response.body.respond).toContain('no brand kit');
    const image = await fetchImage(response.body.post.imageUrl!);
    expect(image).toMatchObject({ format: 'png', width: 1080, height: 1080 });
    // The local renderer's image is drawn inside the workflow's first task: a local activity, no activity task.
    const history = await app.api.services.temporal.workflow.getHandle(workflowIds.postGenerate(postId)).fetchHistory();
    const markers = (history.events ?? []).flatMap((event) => event.markerRecordedEventAttributes?.markerName ?? []);
    expect(markers).toContain('core_local_activity');
    expect(history.events?.some((event) => event.activityTaskScheduledEventAttributes)).toBe(false);
  });

  it.each([
    ['9:16', 1080, 1920],
    ['16:9', 1920, 1080],
  ] as const)('when the format is %s, then the image is %ix%i and the post takes the new prompt and format', async (format, width, height) => {
    const kit = (await workspace.client.post<{ id: string; name: string }>('/brandkits', { name: 'Warm', colors: { primary: '#aa3300', accent: '#ffcc00' } }))
      .body;
    const postId = await newPost({ brandKitId: kit.id });
    const result = await generate(postId, { prompt: 'Pumpkins on a porch', format });
    expect(result.respond).toContain(`(${format})`);
    expect(result.respond).toContain('new prompt "Pumpkins on a porch"');
    expect(result.respond).toContain('brand kit "Warm" (#aa3300, #ffcc00)');
    expect(await fetchImage(result.post.imageUrl!)).toMatchObject({ width, height });
    expect((await workspace.client.get<Schemas['Post']>(`/posts/${postId}`)).body).toMatchObject({ prompt: 'Pumpkins on a porch', format });
  });

  it('when the same seed is used twice, then the same image comes back; another seed gives another image', async () => {
    const postId = await newPost();
    const first = await fetchImage((await generate(postId, { seed: 42 })).post.imageUrl!);
    const again = await fetchImage((await generate(postId, { seed: 42 })).post.imageUrl!);
    const other = await fetchImage((await generate(postId, { seed: 43 })).post.imageUrl!);
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect(other.bytes.equals(first.bytes)).toBe(false);
  });

  it('when the body is invalid, then it answers 400 naming the member', async () => {
    const postId = await newPost();
    for (const [body, path] of [
      [{ format: '4:3' }, '/format'],
      [{ prompt: '' }, '/prompt'],
      [{ seed: -1 }, '/seed'],
      [{ style: 'noir' }, '/style'],
    ] as const) {
      const response = await workspace.client.post<Problem>(`/posts/${postId}/generate`, body);
      expect(response.status).toBe(400);
      expect(response.body.errors?.map((error) => error.path)).toContain(path);
    }
  });
});

describe('versions and restore', () => {
  it('when a post is generated twice and rendered, then it has three numbered versions, and restoring one adds a fourth', async () => {
    const postId = await newPost();
    await generate(postId, { prompt: 'First idea', seed: 1 });
    await generate(postId, { prompt: 'Second idea', format: '16:9', seed: 2 });
    const rendered = await workspace.client.post<Schemas['RenderPostResponse']>(`/posts/${postId}/render`);
    expect(rendered.status).toBe(200);

    const versions = await workspace.client.get<Schemas['PostVersion'][]>(`/posts/${postId}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body.map((version) => [version.versionNumber, version.kind])).toEqual([
      [3, 'rendered'],
      [2, 'generated'],
      [1, 'generated'],
    ]);
    expect(versions.body[2]!.label).toBe('Generated 1:1 image (seed 1)');

    const before = await workspace.client.get<Schemas['Post']>(`/posts/${postId}`);
    const restored = await workspace.client.post<Schemas['RestorePostVersionResponse']>(`/posts/${postId}/versions/${versions.body[2]!.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual({ id: postId, status: 'draft', imageUrl: expect.any(String), updatedAt: expect.any(String) });
    expect(Date.parse(restored.body.updatedAt)).toBeGreaterThan(Date.parse(before.body.updatedAt));

    const post = await workspace.client.get<Schemas['Post']>(`/posts/${postId}`);
    expect(post.body).toMatchObject({ prompt: 'First idea', format: '1:1', status: 'draft' });
    const restoredImage = await fetchImage(post.body.imageUrl!);
    const versionOneImage = await fetchImage(versions.body[2]!.imageUrl);
    expect(restoredImage.bytes.equals(versionOneImage.bytes)).toBe(true);

    const after = await workspace.client.get<Schemas['PostVersion'][]>(`/posts/${postId}/versions`);
    expect(after.body[0]).toMatchObject({ versionNumber: 4, kind: 'restored', label: 'Restored version 1' });
  });

  it('when the version belongs to another post or does not exist, then restore answers 404', async () => {
    const postId = await newPost();
    const otherPost = await newPost();
    await generate(otherPost);
    const [version] = (await workspace.client.get<Schemas['PostVersion'][]>(`/posts/${otherPost}/versions`)).body;
    expect((await workspace.client.post(`/posts/${postId}/versions/${version!.id}/restore`)).status).toBe(404);
    expect((await workspace.client.post(`/posts/${postId}/versions/018f0000-0000-7000-8000-000000000000/restore`)).status).toBe(404);
  });
});

describe('POST /posts/{id}/render', () => {
  it('when the post has no generated image, then it answers 409', async () => {
    const response = await workspace.client.post<Problem>(`/posts/${await newPost()}/render`);
    expect(response.status).toBe(409);
    expect(response.body.detail).toContain('generate it first');
  });

  it('when the brand kit has a reachable logo and known fonts, then the render uses them and says nothing', async () => {
    const kit = (
      await workspace.client.post<{ id: string }>('/brandkits', {
        name: 'Logo kit',
        colors: { primary: '#003366', accent: '#ff9900' },
        fonts: { heading: 'Playfair Display' },
        logoUrl: `${logoServer.url}/logo.png`,
      })
    ).body;
    const postId = await newPost({ brandKitId: kit.id });
    const generated = await generate(postId);
    const response = await workspace.client.post<Schemas['RenderPostResponse']>(`/posts/${postId}/render`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: postId, imageUrl: expect.any(String), status: 'draft', notes: [] });
    const artwork = await fetchImage(generated.post.imageUrl!);
    const rendered = await fetchImage(response.body.imageUrl);
    expect(rendered).toMatchObject({ width: 1080, height: 1080 });
    expect(rendered.bytes.equals(artwork.bytes)).toBe(false);
  });

  it('when the logo cannot be fetched and the font is unknown, then the render still succeeds and notes say why', async () => {
    const kit = (
      await workspace.client.post<{ id: string }>('/brandkits', {
        name: 'Broken kit',
        fonts: { heading: 'Comic Sans' },
        logoUrl: `${logoServer.url}/missing.png`,
      })
    ).body;
    const postId = await newPost({ brandKitId: kit.id });
    await generate(postId);
    const response = await workspace.client.post<Schemas['RenderPostResponse']>(`/posts/${postId}/render`);
    expect(response.status).toBe(200);
    expect(response.body.notes.join('\n')).toMatch(/logo left out: .*404/);
    expect(response.body.notes.join('\n')).toContain('Comic Sans');
  });
});

describe('GET /posts/{id}/download', () => {
  it('when the post has an image, then it downloads as PNG or JPEG with a file name from the title', async () => {
    const postId = await newPost({ title: 'Café Sale: 50% off!' });
    await generate(postId);
    const png = await fetch(`${app.url}/api/v1/posts/${postId}/download`, { headers: { authorization: `Bearer ${workspace.key}` } });
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(png.headers.get('content-disposition')).toBe('attachment; filename="cafe-sale-50-off.png"');
    const jpg = await fetch(`${app.url}/api/v1/posts/${postId}/download?format=jpg`, { headers: { authorization: `Bearer ${workspace.key}` } });
    expect(jpg.headers.get('content-type')).toBe('image/jpeg');
    expect(jpg.headers.get('content-disposition')).toBe('attachment; filename="cafe-sale-50-off.jpg"');
    const bytes = Buffer.from(await jpg.arrayBuffer());
    expect(bytes.subarray(0, 3).toString('hex')).toBe('ffd8ff');
  });

  it('when the post has no image, or the format is unknown, then it answers 409 or 400', async () => {
    const postId = await newPost();
    expect((await workspace.client.get<Problem>(`/posts/${postId}/download`)).status).toBe(409);
    expect((await workspace.client.get<Problem>(`/posts/${postId}/download?format=gif`)).status).toBe(400);
  });
});

describe('GET /usage/activity', () => {
  it('when a workspace generates and renders, then its usage lists them newest first and another workspace sees none', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const project = (await own.client.post<{ id: string }>('/projects', { name: 'Usage' })).body.id;
    const postId = (await own.client.post<{ id: string }>('/posts', { title: 'Counted', prompt: 'Stars', projectId: project })).body.id;
    expect((await own.client.post(`/posts/${postId}/generate`)).status).toBe(200);
    expect((await own.client.post(`/posts/${postId}/render`)).status).toBe(200);

    const usage = await own.client.get<Schemas['UsageActivity']>('/usage/activity');
    expect(usage.status).toBe(200);
    expect(usage.body.activity.map((item) => [item.type, item.typeLabel])).toEqual([
      ['PostRender', 'Post render'],
      ['PostGeneration', 'Post generation'],
    ]);
    expect(usage.body.activity[1]!.description).toContain('"Counted"');

    const paged = await own.client.get<Schemas['UsageActivity']>('/usage/activity?pageSize=1');
    expect(paged.body.activity).toHaveLength(1);
    expect(paged.headers.get('link')).toContain('rel="next"');
    expect((await own.client.get('/usage/activity?pageSize=101')).status).toBe(400);

    const stranger = await createTestWorkspace(app, 'starter');
    expect((await stranger.client.get<Schemas['UsageActivity']>('/usage/activity')).body.activity).toEqual([]);
  });
});

describe('deleting posts and projects', () => {
  it('when a generated post is deleted, then every image it stored leaves storage', async () => {
    const postId = await newPost();
    await generate(postId, { seed: 5 });
    await workspace.client.post(`/posts/${postId}/render`);
    const stored = await app.api.services.orm.em.fork().findOneOrFail(Post, postId);
    const keys = [stored.imageKey!, stored.artworkKey!];
    expect(keys[0]).not.toBe(keys[1]);
    expect((await workspace.client.delete(`/posts/${postId}`)).status).toBe(204);
    await eventually(async () => {
      for (const key of keys) expect(await app.storage.get(key)).toBeNull();
    });
  });

  it('when a project is deleted, then its posts and their images go too', async () => {
    const project = (await workspace.client.post<{ id: string }>('/projects', { name: 'Doomed' })).body.id;
    const postId = (await workspace.client.post<{ id: string }>('/posts', { title: 'T', prompt: 'P', projectId: project })).body.id;
    await generate(postId);
    const key = (await app.api.services.orm.em.fork().findOneOrFail(Post, postId)).imageKey!;
    expect((await workspace.client.delete(`/projects/${project}`)).status).toBe(204);
    expect((await workspace.client.get(`/posts/${postId}`)).status).toBe(404);
    await eventually(async () => expect(await app.storage.get(key)).toBeNull());
  });
});
