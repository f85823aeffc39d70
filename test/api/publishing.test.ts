import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { UsageActivity } from '../../src/adapters/database/entities/usage-activity.ts';
import { WorkspaceEvent } from '../../src/adapters/database/entities/workspace-event.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { startBlueskyServer, type BlueskyServer } from '../fakes/bluesky-server.ts';
import { startMastodonServer, type MastodonServer } from '../fakes/mastodon-server.ts';
import { eventually } from '../support/eventually.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';

// Publish now, schedule, PUT-driven changes and publishing to Mastodon and Bluesky (local servers speaking their
// APIs) through the API, with the real worker on the Temporal dev server.

type Problem = Schemas['Problem'];
type Target = Schemas['PublishTarget'];

let mastodon: MastodonServer;
let bluesky: BlueskyServer;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
let mastodonId: string;
let blueskyId: string;

beforeAll(async () => {
  mastodon = await startMastodonServer();
  bluesky = await startBlueskyServer();
  ({ app, workspace, projectId } = await startAppWithWorkspace({
    env: { SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true', API_WAIT_SECONDS: '10' },
    project: 'Publishing',
  }));
  mastodonId = (
    await workspace.client.post<{ id: string }>('/social-connections', { platform: 'mastodon', instanceUrl: mastodon.url, accessToken: mastodon.token })
  ).body.id;
  blueskyId = (
    await workspace.client.post<{ id: string }>('/social-connections', {
      platform: 'bluesky',
      serviceUrl: bluesky.url,
      handle: bluesky.handle,
      appPassword: bluesky.appPassword,
    })
  ).body.id;
});
afterAll(async () => {
  await app?.stop();
  await mastodon?.close();
  await bluesky?.close();
});

async function newPost(generate = false): Promise<string> {
  const id = (await workspace.client.post<{ id: string }>('/posts', { title: 'Harbour lights', prompt: 'Boats at night', projectId })).body.id;
  if (generate) expect((await workspace.client.post(`/posts/${id}/generate`)).status).toBe(200);
  return id;
}

const inHours = (hours: number) => new Date(Date.now() + hours * 3600_000).toISOString();
const getPost = async (id: string) => (await workspace.client.get<Schemas['Post']>(`/posts/${id}`)).body;

describe('POST /posts/{id}/publish', () => {
  it('when published, then the post is published now, a usage item and a post.published event are recorded', async () => {
    const id = await newPost();
    const before = Date.now();
    const response = await workspace.client.post<Schemas['PublishPostResponse']>(`/posts/${id}/publish`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id, status: 'published', publishedAt: expect.any(String) });
    expect(Date.parse(response.body.publishedAt!)).toBeGreaterThanOrEqual(before - 1000);
    const em = app.api.services.orm.em.fork();
    expect(await em.count(WorkspaceEvent, { postId: id, type: 'post.published' })).toBe(1);
    expect(await em.count(UsageActivity, { postId: id, type: 'PostPublish' })).toBe(1);
  });

  it('when the post belongs to another workspace, then publish, schedule, publish-social and publish-targets answer 404', async () => {
    const stranger = await createTestWorkspace(app, 'growth');
    const id = await newPost();
    expect((await stranger.client.post(`/posts/${id}/publish`)).status).toBe(404);
    expect((await stranger.client.post(`/posts/${id}/schedule`, { scheduledAt: inHours(1) })).status).toBe(404);
    expect((await stranger.client.post(`/posts/${id}/publish-social`, { connectionIds: [mastodonId] })).status).toBe(404);
    expect((await stranger.client.get(`/posts/${id}/publish-targets`)).status).toBe(404);
    expect((await getPost(id)).status).toBe('draft');
  });
});

describe('POST /posts/{id}/schedule and PUT /posts/{id}', () => {
  it('when scheduled, moved and cancelled, then the post follows and its publication workflow agrees', async () => {
    const id = await newPost();
    const first = inHours(24);
    const scheduled = await workspace.client.post<Schemas['SchedulePostResponse']>(`/posts/${id}/schedule`, { scheduledAt: first });
    expect(scheduled.status).toBe(200);
    expect(scheduled.body).toEqual({ id, status: 'scheduled', scheduledAt: new Date(first).toISOString() });

    const moved = inHours(48);
    expect((await workspace.client.post(`/posts/${id}/schedule`, { scheduledAt: moved })).status).toBe(200);
    const handle = app.api.services.temporal.workflow.getHandle(workflowIds.postPublication(id));
    expect(await handle.query<string | null>('publishAt')).toBe(new Date(moved).toISOString());

    const viaPut = inHours(72);
    expect((await workspace.client.put(`/posts/${id}`, { scheduledAt: viaPut })).status).toBe(200);
    expect(await getPost(id)).toMatchObject({ status: 'scheduled', scheduledAt: new Date(viaPut).toISOString() });
    expect(await handle.query<string | null>('publishAt')).toBe(new Date(viaPut).toISOString());

    expect((await workspace.client.put(`/posts/${id}`, { status: 'draft' })).status).toBe(200);
    expect(await getPost(id)).toMatchObject({ status: 'draft', scheduledAt: null });
    expect(await handle.result()).toEqual({ outcome: 'cancelled', publishedAt: null });
  });

  it('when the time comes, then the scheduled post is published by its durable timer', async () => {
    const id = await newPost();
    const at = new Date(Date.now() + 2000).toISOString();
    expect((await workspace.client.post(`/posts/${id}/schedule`, { scheduledAt: at })).status).toBe(200);
    const published = await eventually(async () => {
      const post = await getPost(id);
      expect(post.status).toBe('published');
      return post;
    });
    expect(Date.parse(published.publishedAt!)).toBeGreaterThanOrEqual(Date.parse(at) - 100);
  });

  it('when the time is in the past or missing, then it answers 400', async () => {
    const id = await newPost();
    const past = await workspace.client.post<Problem>(`/posts/${id}/schedule`, { scheduledAt: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body.errors?.[0]?.path).toBe('/scheduledAt');
    expect((await workspace.client.post(`/posts/${id}/schedule`, {})).status).toBe(400);
    expect((await workspace.client.put(`/posts/${id}`, { status: 'scheduled' })).status).toBe(400);
    expect((await getPost(id)).status).toBe('draft');
  });

  it('when PUT sets status published, then the post is published like publish does', async () => {
    const id = await newPost();
    expect((await workspace.client.put(`/posts/${id}`, { status: 'published' })).status).toBe(200);
    expect((await getPost(id)).status).toBe('published');
  });

  it('when a scheduled post is deleted, then its publication is cancelled', async () => {
    const id = await newPost();
    await workspace.client.post(`/posts/${id}/schedule`, { scheduledAt: inHours(5) });
    expect((await workspace.client.delete(`/posts/${id}`)).status).toBe(204);
    const handle = app.api.services.temporal.workflow.getHandle(workflowIds.postPublication(id));
    expect((await handle.result()).outcome).toBe('cancelled');
  });
});

describe('POST /posts/{id}/publish-social and GET /posts/{id}/publish-targets', () => {
  it('when published to Mastodon and Bluesky now, then both targets are published once with the image', async () => {
    const id = await newPost(true);
    const response = await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, { connectionIds: [mastodonId, blueskyId] });
    expect(response.status).toBe(200);
    expect(response.body.map((target) => [target.platform, target.status])).toEqual([
      ['mastodon', 'Published'],
      ['bluesky', 'Published'],
    ]);
    const status = mastodon.statuses.find((candidate) => candidate.id === response.body[0]!.externalPostId);
    expect(status).toMatchObject({ text: 'Harbour lights' });
    expect(status!.media).toHaveLength(1);
    expect(bluesky.records.some((record) => record.uri === response.body[1]!.externalPostId)).toBe(true);
    expect(await getPost(id)).toMatchObject({ status: 'published' });

    const listed = await workspace.client.get<Target[]>(`/posts/${id}/publish-targets`);
    expect(listed.body.map((target) => target.id).sort()).toEqual(response.body.map((target) => target.id).sort());
    expect(listed.body[0]).toEqual({
      id: expect.any(String),
      connectionId: expect.any(String),
      platform: expect.any(String),
      status: 'Published',
      externalPostId: expect.any(String),
      externalUrl: expect.any(String),
      errorMessage: null,
      scheduledAt: null,
      publishedAt: expect.any(String),
      createdAt: expect.any(String),
      attempts: [{ at: expect.any(String), outcome: 'published', detail: 'Published on the platform.', nextAttemptAt: null, answers: null }],
    });
  });

  it('when scheduled, then the targets come back Scheduled at once and the post is scheduled', async () => {
    const id = await newPost(true);
    const at = inHours(6);
    const response = await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, { connectionIds: [blueskyId], scheduledAt: at });
    expect(response.status).toBe(200);
    expect(response.body).toEqual([expect.objectContaining({ status: 'Scheduled', scheduledAt: new Date(at).toISOString(), externalPostId: null })]);
    expect(await getPost(id)).toMatchObject({ status: 'scheduled', scheduledAt: new Date(at).toISOString() });
    await workspace.client.put(`/posts/${id}`, { status: 'draft' });
    expect((await workspace.client.get<Target[]>(`/posts/${id}/publish-targets`)).body[0]!.status).toBe('Cancelled');
  });

  it('when one platform refuses, then its target fails with the reason and the post is still published', async () => {
    const id = await newPost(true);
    mastodon.script('statuses', [{ status: 422, error: 'Validation failed: Text character limit of 500 exceeded' }]);
    const response = await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, { connectionIds: [mastodonId, blueskyId] });
    const [onMastodon, onBluesky] = response.body;
    expect(onMastodon).toMatchObject({ status: 'Failed', errorMessage: expect.stringContaining('character limit') });
    expect(onBluesky!.status).toBe('Published');
    expect((await getPost(id)).status).toBe('published');
  });

  it('when every platform refuses, then the post fails with the reasons and a post.failed event', async () => {
    const id = await newPost(true);
    mastodon.script('statuses', [{ status: 401, error: 'The access token was revoked' }]);
    const response = await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, { connectionIds: [mastodonId] });
    expect(response.body[0]).toMatchObject({ status: 'Failed', errorMessage: expect.stringContaining('revoked') });
    const post = await getPost(id);
    expect(post).toMatchObject({ status: 'failed', failureReason: expect.stringContaining('revoked') });
    expect(await app.api.services.orm.em.fork().count(WorkspaceEvent, { postId: id, type: 'post.failed' })).toBe(1);
  });

  it('when a connection is unknown or of another workspace, or none is given, then it answers 404 or 400', async () => {
    const id = await newPost();
    const stranger = await createTestWorkspace(app, 'growth');
    const theirs = (
      await stranger.client.post<{ id: string }>('/social-connections', { platform: 'mastodon', instanceUrl: mastodon.url, accessToken: mastodon.token })
    ).body.id;
    expect((await workspace.client.post<Problem>(`/posts/${id}/publish-social`, { connectionIds: [theirs] })).status).toBe(404);
    expect((await workspace.client.post<Problem>(`/posts/${id}/publish-social`, { connectionIds: [] })).status).toBe(400);
    expect(
      (await workspace.client.post<Problem>(`/posts/${id}/publish-social`, { connectionIds: [mastodonId], scheduledAt: '2020-01-01T00:00:00Z' })).status,
    ).toBe(400);
    expect((await workspace.client.get<Target[]>(`/posts/${id}/publish-targets`)).body).toEqual([]);
  });
});
