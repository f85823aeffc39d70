import { randomBytes, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublishTarget } from '../../src/adapters/database/entities/publish-target.ts';
import { weightedLength } from '../../src/adapters/social/weighted-text.ts';
import type { Schemas } from '../../src/api/schemas.ts';
import { setPostImage } from '../../src/domain/posts/set-post-image.ts';
import { startLinkedInServer, type LinkedInServer } from '../fakes/linkedin-server.ts';
import { startThreadsServer, type ThreadsServer } from '../fakes/threads-server.ts';
import { startXServer, type XServer } from '../fakes/x-server.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import { connectThroughOAuth, linkedInEnv, threadsEnv } from '../support/oauth-connections.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestWorkspace } from '../support/workspaces.ts';
import { xEnv } from '../support/x-connections.ts';

// The dry run of publish-social for the platforms that connect through OAuth (X, LinkedIn, Threads), each connected
// through its whole round trip against its fake: what each would receive of a 400-character text and a 6 MB image,
// and the problems it would meet. Mastodon and Bluesky are in publishing-preflight.test.ts.

type Preview = Schemas['PublishPreview'];

let x: XServer;
let linkedin: LinkedInServer;
let threads: ThreadsServer;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
const redirectUri = 'https://client.example/connected';

beforeAll(async () => {
  [x, linkedin, threads] = await Promise.all([startXServer(), startLinkedInServer(), startThreadsServer()]);
  ({ app, workspace, projectId } = await startAppWithWorkspace({
    env: { ...xEnv(x), ...linkedInEnv(linkedin), ...threadsEnv(threads), API_WAIT_SECONDS: '10' },
    project: 'Preflight over OAuth',
  }));
  // The operator registers our callback with the LinkedIn app, which takes no other.
  linkedin.redirectUris.push(`http://localhost:${new URL(app.url).port}/oauth/linkedin/callback`);
  expect((await workspace.client.call('PATCH', '/workspace', { body: { oauthRedirectUris: [redirectUri] } })).status).toBe(200);
});
afterAll(async () => {
  await app?.stop();
  await Promise.all([x?.close(), linkedin?.close(), threads?.close()]);
});

async function connect(platform: 'x' | 'linkedin' | 'threads'): Promise<string> {
  const back = await connectThroughOAuth(workspace.client, { platform, redirectUri });
  expect(back.searchParams.get('error')).toBeNull();
  return back.searchParams.get('connectionId')!;
}

describe('the dry run for the OAuth platforms', () => {
  it('when a 400-character text and a 6 MB image are previewed for X, LinkedIn and Threads, then each gets its text, count, image and problems, and nothing is published or recorded', async () => {
    const [onX, onLinkedIn, onThreads] = [await connect('x'), await connect('linkedin'), await connect('threads')];
    const id = (await workspace.client.post<{ id: string }>('/posts', { title: 'Harbour lights', prompt: 'Boats at night', projectId })).body.id;
    // Random pixels, which no encoder shrinks much: over 6 MB as PNG.
    const image = await sharp(randomBytes(1420 * 1420 * 3), { raw: { width: 1420, height: 1420, channels: 3 } })
      .png()
      .toBuffer();
    expect(image.length).toBeGreaterThan(6_000_000);
    const imageKey = `test/${randomUUID()}.png`;
    await app.storage.put(imageKey, image, 'image/png');
    await setPostImage(app.api.services.orm.em.fork(), id, { imageKey });
    const text = 'Lanterns sway over the harbour wall tonight. '.repeat(9).slice(0, 399).concat('!');
    expect(text).toHaveLength(400);
    const connectionIds = [onX, onLinkedIn, onThreads];

    const response = await workspace.client.post<Preview[]>(`/posts/${id}/publish-social`, {
      connectionIds,
      overrides: Object.fromEntries(connectionIds.map((connectionId) => [connectionId, { text }])),
      dryRun: true,
    });

    expect(response.status).toBe(200);
    const [toX, toLinkedIn, toThreads] = response.body;
    const codes = (preview: Preview | undefined) => preview!.problems.map((problem) => problem.code);

    // X: cut at a word to its 280 weighted characters, counted as X counts; the PNG sent as it is, over X's 5 MB.
    expect(toX).toMatchObject({ connectionId: onX, platform: 'x', image: { type: 'image/png', bytes: image.length, width: 1420, height: 1420 } });
    expect(toX!.text.endsWith('…')).toBe(true);
    expect(text.startsWith(toX!.text.slice(0, -1).trimEnd())).toBe(true);
    expect(toX!.count).toBe(weightedLength(toX!.text));
    expect(toX!.count).toBeLessThanOrEqual(280);
    expect(codes(toX)).toEqual(['text_too_long', 'image_too_large']);

    // LinkedIn: 400 characters fit its 3,000; the image is re-encoded under its 5 MB, so nothing stands in the way.
    expect(toLinkedIn).toMatchObject({ connectionId: onLinkedIn, platform: 'linkedin', text, count: 400, problems: [] });
    expect(toLinkedIn!.image).toMatchObject({ type: 'image/jpeg', width: 1420, height: 1420 });
    expect(toLinkedIn!.image!.bytes).toBeLessThanOrEqual(5 * 1024 * 1024);

    // Threads: the text fits its 500 and the image its 8 MB, but Threads fetches the image from our PUBLIC_URL, and
    // this service answers on localhost, which Threads cannot reach.
    expect(toThreads).toMatchObject({ connectionId: onThreads, platform: 'threads', text, count: 400 });
    expect(toThreads!.image).toMatchObject({ type: 'image/png', bytes: image.length, width: 1420, height: 1420 });
    expect(codes(toThreads)).toEqual(['public_url_unreachable']);

    // Nothing was sent to a platform's posting endpoints, and no target was recorded.
    expect(x.tweets).toHaveLength(0);
    expect(x.media).toHaveLength(0);
    expect(threads.containers).toHaveLength(0);
    expect(linkedin.requests.filter((request) => request.path.startsWith('/rest/posts') || request.path.startsWith('/rest/images'))).toHaveLength(0);
    expect(await app.api.services.orm.em.fork().count(PublishTarget, { postId: id })).toBe(0);
  });

  it('when a text with six different links is previewed for Threads and X, then Threads says too_many_links (it takes five) and X does not', async () => {
    const [onX, onThreads] = [await connect('x'), await connect('threads')];
    const id = (await workspace.client.post<{ id: string }>('/posts', { title: 'Links', prompt: 'Six places to visit', projectId })).body.id;
    const text = `Read more: ${[1, 2, 3, 4, 5, 6].map((n) => `https://harbour.example/${n}`).join(' ')}`;

    const response = await workspace.client.post<Preview[]>(`/posts/${id}/publish-social`, {
      connectionIds: [onX, onThreads],
      overrides: { [onX]: { text }, [onThreads]: { text } },
      dryRun: true,
    });

    expect(response.status).toBe(200);
    const [toX, toThreads] = response.body;
    expect(toX!.problems).toEqual([]);
    expect(toThreads!.problems).toEqual([
      { code: 'too_many_links', message: 'The post would carry 6 different links; the platform takes at most 5: publishing would fail.' },
    ]);
    expect(threads.containers).toHaveLength(0);
  });
});
