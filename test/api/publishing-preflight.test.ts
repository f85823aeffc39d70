import { WorkflowNotFoundError } from '@temporalio/client';
import { randomBytes, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { IdempotencyKey } from '../../src/adapters/database/entities/idempotency-key.ts';
import { PublishTarget } from '../../src/adapters/database/entities/publish-target.ts';
import { UsageActivity } from '../../src/adapters/database/entities/usage-activity.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { setPostImage } from '../../src/domain/posts/set-post-image.ts';
import { startBlueskyServer, type BlueskyServer } from '../fakes/bluesky-server.ts';
import { startMastodonServer, type MastodonServer } from '../fakes/mastodon-server.ts';
import { failureOf } from '../support/failure-of.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';
import { longThreadText } from '../support/thread-text.ts';

// The platform catalogue, the dry run of publish-social and per-connection overrides, through the API with the real
// worker, against local servers speaking Mastodon's and Bluesky's APIs.

type Problem = Schemas['Problem'];
type Preview = Schemas['PublishPreview'];
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
    project: 'Preflight',
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
beforeEach(() => {
  mastodon.requests.length = 0;
  bluesky.requests.length = 0;
});
afterAll(async () => {
  await app?.stop();
  await mastodon?.close();
  await bluesky?.close();
});

async function newPost(): Promise<string> {
  return (await workspace.client.post<{ id: string }>('/posts', { title: 'Harbour lights', prompt: 'Boats at night', projectId })).body.id;
}

/** A post whose image is a PNG of random pixels (which no encoder can shrink much), `size` pixels square. */
async function postWithNoiseImage(size: number): Promise<{ id: string; image: Buffer }> {
  const id = await newPost();
  const image = await sharp(randomBytes(size * size * 3), { raw: { width: size, height: size, channels: 3 } })
    .png()
    .toBuffer();
  const imageKey = `test/${randomUUID()}.png`;
  await app.storage.put(imageKey, image, 'image/png');
  await setPostImage(app.api.services.orm.em.fork(), id, { imageKey });
  return { id, image };
}

describe('GET /social-platforms', () => {
  it('when a Starter workspace asks, then it lists each platform as its connector declares it, and whether it is configured', async () => {
    const starter = await createTestWorkspace(app, 'starter');
    const response = await starter.client.get<Schemas['SocialPlatformEntry'][]>('/social-platforms');
    expect(response.status).toBe(200);
    expect(response.body.map((entry) => entry.platform)).toEqual([
      'mastodon',
      'bluesky',
      'x',
      'linkedin',
      'threads',
      'nostr',
      'telegram',
      'discord',
      'slack',
      'pinterest',
      'youtube',
      'instagram',
      'tiktok',
      'facebook',
    ]);
    const entry = (platform: string) => response.body.find((listed) => listed.platform === platform);
    expect(entry('mastodon')).toEqual({
      platform: 'mastodon',
      auth: 'token',
      configured: true,
      text: { max: 500, unit: 'graphemes', linkLength: 23 },
      images: { types: ['image/png', 'image/jpeg'], maxBytes: 16 * 1024 * 1024, maxCount: 4, altText: true },
      video: { types: ['video/mp4'], maxBytes: 103_809_024 },
      threads: true,
      destination: null,
      settings: [],
      retriesNeverDuplicate: { guaranteed: true, how: expect.stringContaining('Idempotency-Key'), withinMs: 50 * 60_000 },
    });
    expect(entry('bluesky')).toEqual({
      platform: 'bluesky',
      auth: 'app-password',
      configured: true,
      text: { max: 300, unit: 'graphemes' },
      images: { types: ['image/png', 'image/jpeg'], maxBytes: 2_000_000, maxCount: 4, altText: true },
      video: { types: ['video/mp4'], maxBytes: 100 * 1024 * 1024, maxDurationMs: 600_000 },
      threads: true,
      destination: null,
      settings: [],
      retriesNeverDuplicate: { guaranteed: true, how: expect.stringContaining('record key') },
    });
    // OAuth platforms whose apps this service was not given: listed, not configured.
    expect(entry('x')).toMatchObject({ platform: 'x', auth: 'oauth2', configured: false, text: { max: 280, unit: 'weighted' } });
    expect(entry('linkedin')).toMatchObject({ platform: 'linkedin', auth: 'oauth2', configured: false, text: { max: 3000, unit: 'characters' } });
    expect(entry('threads')).toMatchObject({ platform: 'threads', auth: 'oauth2', configured: false, text: { max: 500, unit: 'weighted' } });
    // Pins go to a board the connection chooses.
    // Video only.
    expect(entry('youtube')).toMatchObject({
      platform: 'youtube',
      auth: 'oauth2',
      configured: false,
      images: { maxCount: 0 },
      video: { types: ['video/mp4'] },
    });
    // JPEG only (a post's image is converted and padded to Instagram's shapes), and Reels from 3 s.
    expect(entry('instagram')).toMatchObject({
      platform: 'instagram',
      auth: 'oauth2',
      configured: false,
      text: { max: 2200, unit: 'characters' },
      images: { types: ['image/jpeg'], maxCount: 1, altText: true },
      video: { minDurationMs: 3000 },
    });
    // Videos only, to the privacy level chosen for the connection.
    // Posts go to a Page the connection chooses.
    expect(entry('facebook')).toMatchObject({ platform: 'facebook', auth: 'oauth2', configured: false, destination: 'page', text: { max: 63_206 } });
    expect(entry('tiktok')).toMatchObject({
      platform: 'tiktok',
      auth: 'oauth2',
      configured: false,
      destination: 'privacy level',
      text: { max: 2200, unit: 'characters' },
      images: { maxCount: 0 },
      video: { types: ['video/mp4'], maxBytes: 4_000_000_000, minDurationMs: 3000, maxDurationMs: 600_000 },
      retriesNeverDuplicate: { guaranteed: true },
    });
    expect(entry('pinterest')).toMatchObject({ platform: 'pinterest', auth: 'oauth2', configured: false, destination: 'board', text: { max: 800 } });
    // A caption's limit, the most a post always carries whole (a message without an image takes 4,096).
    expect(entry('telegram')).toMatchObject({ platform: 'telegram', auth: 'token', configured: true, text: { max: 1024, unit: 'characters' }, threads: false });
    expect(entry('telegram')?.retriesNeverDuplicate.guaranteed).toBe(false);
    expect(entry('discord')).toMatchObject({ platform: 'discord', auth: 'token', configured: true, text: { max: 2000, unit: 'characters' }, threads: false });
    expect(entry('discord')?.images.altText).toBe(true);
    expect(entry('slack')).toMatchObject({ platform: 'slack', auth: 'token', configured: true, text: { max: 4000, unit: 'characters' }, threads: false });
    expect(entry('nostr')).toMatchObject({ platform: 'nostr', auth: 'token', configured: true, text: { max: 500, unit: 'graphemes' }, threads: true });
  });

  it('when no key is given, then it answers 401', async () => {
    expect((await workspace.client.get('/social-platforms', { key: null })).status).toBe(401);
  });
});

describe('POST /posts/{id}/publish-social with dryRun', () => {
  it('when a 400-character text and a 6 MB image are previewed for Mastodon and Bluesky, then each gets its text, count, image and problems, and nothing is published or recorded', async () => {
    const { id, image } = await postWithNoiseImage(1420);
    expect(image.length).toBeGreaterThan(6_000_000);
    const text = `${'Lanterns sway over the harbour wall tonight. '.repeat(9)}`.slice(0, 399).concat('!');
    expect(text).toHaveLength(400);
    const key = `preflight-${randomUUID()}`;
    const overrides = { [mastodonId]: { text }, [blueskyId]: { text } };

    const response = await workspace.client.post<Preview[]>(
      `/posts/${id}/publish-social`,
      { connectionIds: [mastodonId, blueskyId], overrides, dryRun: true },
      { headers: { 'idempotency-key': key } },
    );

    expect(response.status).toBe(200);
    const [onMastodon, onBluesky] = response.body;
    expect(onMastodon).toEqual({
      connectionId: mastodonId,
      platform: 'mastodon',
      text,
      count: 400,
      media: 'image',
      image: { type: 'image/png', bytes: image.length, width: 1420, height: 1420 },
      video: null,
      parts: [{ text, count: 400 }],
      limits: [],
      facts: [],
      problems: [],
    });
    expect(onBluesky).toMatchObject({ connectionId: blueskyId, platform: 'bluesky', image: { type: 'image/jpeg', width: 1420, height: 1420 } });
    expect(onBluesky!.text).toBe(`${text.slice(0, onBluesky!.text.length - 1).trimEnd()}…`);
    expect(onBluesky!.count).toBe(Array.from(onBluesky!.text).length);
    expect(onBluesky!.count).toBeLessThanOrEqual(300);
    expect(onBluesky!.image!.bytes).toBeLessThanOrEqual(2_000_000);
    expect(onBluesky!.problems).toEqual([
      { code: 'text_too_long', message: `The text would be shortened from 400 to ${onBluesky!.count} graphemes (the platform takes at most 300).` },
    ]);

    // Nothing reached a platform, and nothing was recorded: no target, no usage, no workflow, no stored answer.
    expect(mastodon.requests).toHaveLength(0);
    expect(bluesky.requests).toHaveLength(0);
    const em = app.api.services.orm.em.fork();
    expect(await em.count(PublishTarget, { postId: id })).toBe(0);
    expect(await em.count(UsageActivity, { postId: id })).toBe(0);
    expect(await em.count(IdempotencyKey, { key })).toBe(0);
    await failureOf(app.api.services.temporal.workflow.getHandle(workflowIds.postPublication(id)).describe(), WorkflowNotFoundError);
    expect((await workspace.client.get<Schemas['Post']>(`/posts/${id}`)).body.status).toBe('draft');

    // The key stays free for the publication the dry run rehearsed, which sends what the dry run showed.
    const published = await workspace.client.post<Target[]>(
      `/posts/${id}/publish-social`,
      { connectionIds: [mastodonId, blueskyId], overrides },
      { headers: { 'idempotency-key': key } },
    );
    expect(published.status).toBe(200);
    expect(published.headers.get('idempotent-replayed')).toBeNull();
    expect(published.body.map((target) => target.status)).toEqual(['Published', 'Published']);
    expect(mastodon.statuses.find((status) => status.id === published.body[0]!.externalPostId)?.text).toBe(onMastodon!.text);
    const record = bluesky.records.find((candidate) => candidate.uri === published.body[1]!.externalPostId);
    expect(record?.value.text).toBe(onBluesky!.text);
    const blobs = bluesky.blobs.filter((blob) => blob.bytes.length === onBluesky!.image!.bytes && blob.mimeType === 'image/jpeg');
    expect(blobs).toHaveLength(1);
  });

  it('when a 1,200-character text is previewed as a thread, then each connection lists its numbered parts, and publishing sends exactly those as a chain', async () => {
    const { id } = await postWithNoiseImage(64);
    const overrides = { [mastodonId]: { text: longThreadText }, [blueskyId]: { text: longThreadText } };
    const request = { connectionIds: [mastodonId, blueskyId], overrides, thread: true };

    const preview = await workspace.client.post<Preview[]>(`/posts/${id}/publish-social`, { ...request, dryRun: true });
    expect(preview.status).toBe(200);
    const [onMastodon, onBluesky] = preview.body;
    for (const [entry, max] of [
      [onMastodon!, 500],
      [onBluesky!, 300],
    ] as const) {
      expect(entry.problems).toEqual([]);
      expect(entry.parts.length).toBeGreaterThan(1);
      expect(entry.parts[0]).toEqual({ text: entry.text, count: entry.count });
      for (const [index, part] of entry.parts.entries()) {
        expect(part.count).toBeLessThanOrEqual(max);
        expect(part.text.endsWith(` (${index + 1}/${entry.parts.length})`)).toBe(true);
      }
    }
    expect(mastodon.requests).toHaveLength(0);

    const published = await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, request);
    expect(published.body.map((target) => target.status)).toEqual(['Published', 'Published']);
    const [toMastodon, toBluesky] = published.body;
    expect(toMastodon).toMatchObject({ thread: true, externalPostId: toMastodon!.parts![0]!.externalPostId });
    const statuses = toMastodon!.parts!.map((part) => mastodon.statuses.find((status) => status.id === part.externalPostId)!);
    expect(statuses.map((status) => status.text)).toEqual(onMastodon!.parts.map((part) => part.text));
    expect(statuses.map((status) => status.inReplyToId)).toEqual([null, ...statuses.slice(0, -1).map((status) => status.id)]);
    expect(statuses.map((status) => status.media.length)).toEqual(statuses.map((_status, index) => (index === 0 ? 1 : 0)));
    expect(toMastodon!.attempts.map((attempt) => [attempt.part, attempt.outcome])).toEqual(statuses.map((_status, index) => [index + 1, 'published']));
    const records = toBluesky!.parts!.map((part) => bluesky.records.find((record) => record.uri === part.externalPostId)!);
    expect(records.map((record) => record.value.text)).toEqual(onBluesky!.parts.map((part) => part.text));
    const [root] = records;
    for (const [index, record] of records.entries()) {
      const parent = records[index - 1];
      expect(record.value.reply).toEqual(parent ? { root: { uri: root!.uri, cid: root!.cid }, parent: { uri: parent.uri, cid: parent.cid } } : undefined);
    }
  });

  it("when the image is still over Bluesky's 2,000,000 bytes as its smallest JPEG, then the preview says publishing would fail", async () => {
    const { id } = await postWithNoiseImage(2700);
    const response = await workspace.client.post<Preview[]>(`/posts/${id}/publish-social`, { connectionIds: [blueskyId], dryRun: true });
    const [preview] = response.body;
    expect(preview!.image).toMatchObject({ type: 'image/jpeg', width: 2700, height: 2700 });
    expect(preview!.image!.bytes).toBeGreaterThan(2_000_000);
    expect(preview!.problems).toEqual([
      {
        code: 'image_too_large',
        message: `The image would be ${preview!.image!.bytes} bytes as sent, more than the platform's 2000000: publishing would fail.`,
      },
    ]);
  });

  it('when a text with a long link is too long for Mastodon, then the problem counts it as Mastodon does, the link as 23', async () => {
    const id = await newPost();
    const text = `https://example.com/${'a'.repeat(200)} ${'word '.repeat(110).trimEnd()}`;
    const response = await workspace.client.post<Preview[]>(`/posts/${id}/publish-social`, {
      connectionIds: [mastodonId],
      overrides: { [mastodonId]: { text } },
      dryRun: true,
    });
    const [preview] = response.body;
    expect(preview!.count).toBeLessThanOrEqual(500);
    expect(preview!.problems).toEqual([
      { code: 'text_too_long', message: `The text would be shortened from ${23 + 1 + 549} to ${preview!.count} graphemes (the platform takes at most 500).` },
    ]);
  });

  it('when the post has no image, then the previews have none and the title is the text', async () => {
    const id = await newPost();
    const response = await workspace.client.post<Preview[]>(`/posts/${id}/publish-social`, { connectionIds: [blueskyId], dryRun: true });
    expect(response.body).toEqual([
      {
        connectionId: blueskyId,
        platform: 'bluesky',
        text: 'Harbour lights',
        count: 14,
        media: 'none',
        image: null,
        video: null,
        parts: [{ text: 'Harbour lights', count: 14 }],
        limits: [],
        facts: [],
        problems: [],
      },
    ]);
  });

  it("when a connection is another workspace's, then it answers 404 as a publication does", async () => {
    const id = await newPost();
    const stranger = await createTestWorkspace(app, 'growth');
    const theirs = (
      await stranger.client.post<{ id: string }>('/social-connections', { platform: 'mastodon', instanceUrl: mastodon.url, accessToken: mastodon.token })
    ).body.id;
    const response = await workspace.client.post<Problem>(`/posts/${id}/publish-social`, { connectionIds: [mastodonId, theirs], dryRun: true });
    expect(response.status).toBe(404);
    expect(response.body.detail).toContain(theirs);
    expect((await stranger.client.post(`/posts/${id}/publish-social`, { connectionIds: [theirs], dryRun: true })).status).toBe(404);
  });
});

describe('POST /posts/{id}/publish-social with overrides', () => {
  it('when each connection is given its own text and alt text, then each platform receives its own and the targets keep them', async () => {
    const id = await newPost();
    expect((await workspace.client.post(`/posts/${id}/generate`)).status).toBe(200);
    const response = await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, {
      connectionIds: [mastodonId, blueskyId],
      overrides: {
        [mastodonId]: { text: 'Tonight on the quay #harbour', altText: 'Lit boats along a stone quay' },
        [blueskyId]: { text: 'Harbour lights, 8 pm' },
      },
    });
    expect(response.body.map((target) => target.status)).toEqual(['Published', 'Published']);

    const status = mastodon.statuses.find((candidate) => candidate.id === response.body[0]!.externalPostId);
    expect(status).toMatchObject({ text: 'Tonight on the quay #harbour' });
    expect(status!.media[0]!.description).toBe('Lit boats along a stone quay');
    const record = bluesky.records.find((candidate) => candidate.uri === response.body[1]!.externalPostId);
    expect(record!.value).toMatchObject({ text: 'Harbour lights, 8 pm', embed: { images: [{ alt: 'Boats at night' }] } });

    const targets = await app.api.services.orm.em.fork().find(PublishTarget, { postId: id }, { orderBy: { createdAt: 'asc' } });
    expect(targets.map((target) => [target.textOverride, target.altTextOverride])).toEqual([
      ['Tonight on the quay #harbour', 'Lit boats along a stone quay'],
      ['Harbour lights, 8 pm', null],
    ]);
  });

  it('when an override names a connection not being published to, or is too long, then it answers 400 naming it and records nothing', async () => {
    const id = await newPost();
    const stray = await workspace.client.post<Problem>(`/posts/${id}/publish-social`, {
      connectionIds: [mastodonId],
      overrides: { [blueskyId]: { text: 'Not here' } },
    });
    expect(stray.status).toBe(400);
    expect(stray.body.errors).toEqual([{ location: 'body', path: '/overrides', message: `names ${blueskyId}, which is not in connectionIds` }]);
    const dryStray = await workspace.client.post<Problem>(`/posts/${id}/publish-social`, {
      connectionIds: [mastodonId],
      overrides: { [blueskyId]: { altText: 'Not here' } },
      dryRun: true,
    });
    expect(dryStray.status).toBe(400);

    const tooLong = await workspace.client.post<Problem>(`/posts/${id}/publish-social`, {
      connectionIds: [mastodonId],
      overrides: { [mastodonId]: { text: 'x'.repeat(3001) } },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors?.[0]?.path).toBe(`/overrides/${mastodonId}/text`);
    expect(await app.api.services.orm.em.fork().count(PublishTarget, { postId: id })).toBe(0);
  });
});
