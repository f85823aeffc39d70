import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LinkedInCredentials, ThreadsCredentials } from '../../src/adapters/social/social-connector.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import type { Schemas } from '../../src/api/schemas.ts';
import { startLinkedInServer, type LinkedInServer } from '../fakes/linkedin-server.ts';
import { startThreadsServer, type ThreadsServer } from '../fakes/threads-server.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import { postWithVideo } from '../support/post-with-video.ts';
import { publishAndWait } from '../support/published-targets.ts';
import { connectThroughOAuth, continueOnConsentPage, linkedInEnv, storedCredentials, threadsEnv } from '../support/oauth-connections.ts';
import type { TestApp } from '../support/test-app.ts';
import { makeVideo } from '../support/video-files.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// The tests whose post's answer never comes wait for the request to time out: short here, 30 s by default.
const lostAnswerSeconds = '5';

// LinkedIn and Threads as platforms of the service, against their fakes: connected through the whole OAuth round
// trip, published to with an image, and listed as configured.

type Connection = Schemas['SocialConnection'];
type Target = Schemas['PublishTarget'];

let linkedin: LinkedInServer;
let threads: ThreadsServer;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
const redirectUri = 'https://client.example/connected';

beforeAll(async () => {
  [linkedin, threads] = await Promise.all([startLinkedInServer(), startThreadsServer()]);
  ({ app, workspace, projectId } = await startAppWithWorkspace({
    env: {
      // Organisations through an app of their own, as LinkedIn's portal asks of the Community Management API.
      ...linkedInEnv(linkedin, { organizationApp: true }),
      ...threadsEnv(threads),
      API_WAIT_SECONDS: '10',
      SOCIAL_REQUEST_TIMEOUT_SECONDS: lostAnswerSeconds,
    },
    project: 'LinkedIn and Threads',
  }));
  // The operator registers our callback with the LinkedIn app, which takes no other.
  linkedin.redirectUris.push(`http://localhost:${new URL(app.url).port}/oauth/linkedin/callback`);
  expect((await workspace.client.call('PATCH', '/workspace', { body: { oauthRedirectUris: [redirectUri] } })).status).toBe(200);
});
afterAll(async () => {
  await app?.stop();
  await Promise.all([linkedin?.close(), threads?.close()]);
});

async function connect(platform: 'linkedin' | 'threads', author?: string): Promise<string> {
  const back = await connectThroughOAuth(workspace.client, { platform, redirectUri, ...(author ? { author } : {}) });
  expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
  expect(back.searchParams.get('error')).toBeNull();
  return back.searchParams.get('connectionId')!;
}

/** A post with a generated image, published to the connection now; its target. */
async function publishWithImage(connectionId: string, title: string): Promise<Target> {
  const id = (await workspace.client.post<{ id: string }>('/posts', { title, prompt: 'Boats at night', projectId })).body.id;
  expect((await workspace.client.post(`/posts/${id}/generate`)).status).toBe(200);
  const response = await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, { connectionIds: [connectionId] });
  return response.body[0]!;
}

/**
 * A post published to the connection while the platform's answer to the post is lost (the platform made it): the
 * target once the retry has looked it up.
 */
async function publishLosingTheAnswer(connectionId: string, title: string): Promise<Target> {
  const id = (await workspace.client.post<{ id: string }>('/posts', { title, prompt: 'Boats at night', projectId })).body.id;
  await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, { connectionIds: [connectionId] });
  const targets = async () => (await workspace.client.get<Target[]>(`/posts/${id}/publish-targets`)).body;
  await expect.poll(async () => (await targets())[0]?.status, { timeout: 100_000, interval: 500 }).toBe('Published');
  const [target] = await targets();
  // The first attempt heard nothing; the second found the post rather than sending it again.
  expect(target!.attempts.map((attempt) => attempt.outcome)).toEqual(['unknown', 'published']);
  return target!;
}

async function expectKeptAlive(connectionId: string): Promise<void> {
  const keepAlive = await app.api.services.temporal.workflow.getHandle(workflowIds.socialConnection(connectionId)).describe();
  expect(keepAlive.status.name).toBe('RUNNING');
}

describe('GET /social-platforms with the LinkedIn and Threads apps set', () => {
  it('when asked, then LinkedIn and Threads are listed as OAuth platforms, configured', async () => {
    const response = await workspace.client.get<Schemas['SocialPlatformEntry'][]>('/social-platforms');
    expect(response.body.filter((entry) => entry.platform === 'linkedin' || entry.platform === 'threads')).toEqual([
      expect.objectContaining({ platform: 'linkedin', auth: 'oauth2', configured: true, text: { max: 3000, unit: 'characters' } }),
      expect.objectContaining({ platform: 'threads', auth: 'oauth2', configured: true, text: { max: 500, unit: 'weighted', maxLinks: 5 } }),
    ]);
    expect(response.body.find((entry) => entry.platform === 'x')?.configured).toBe(false);
  });
});

describe('LinkedIn through OAuth', () => {
  it('when the member consents, then the callback makes a connection posting as the member, starts its keep-alive and sends them back with its id', async () => {
    const created = await workspace.client.post<Schemas['OAuthAuthorization']>('/social-connections/authorizations', { platform: 'linkedin', redirectUri });
    const authorizationUrl = await continueOnConsentPage(created.body.authorizationUrl);
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${linkedin.url}/oauth/v2/authorization`);
    expect(authorizationUrl.searchParams.get('redirect_uri')).toBe(`http://localhost:${new URL(app.url).port}/oauth/linkedin/callback`);

    const connectionId = await connect('linkedin');
    const connection = await workspace.client.get<Connection>(`/social-connections/${connectionId}`);
    const member = `urn:li:person:${linkedin.member.sub}`;
    expect(connection.body).toMatchObject({ platform: 'linkedin', accountName: 'Alice Example', serverUrl: linkedin.url, status: 'active', lastError: null });
    const stored = await storedCredentials<LinkedInCredentials>(app.api.services.orm, app.config, connectionId);
    expect(stored).toMatchObject({ platform: 'linkedin', author: member, refreshToken: expect.stringMatching(/^AQW/) });
    expect(JSON.stringify(connection.body)).not.toContain(stored.accessToken);
    await expectKeptAlive(connectionId);
  });

  it('when an organisation the member administers is asked for as author, then it is connected through the organisation app and posts as it; one they do not is refused', async () => {
    linkedin.acls.push({ organization: 'urn:li:organization:12345', role: 'ADMINISTRATOR', state: 'APPROVED' });
    linkedin.organizations.set('12345', 'Harbour Co');
    const created = await workspace.client.post<Schemas['OAuthAuthorization']>('/social-connections/authorizations', {
      platform: 'linkedin',
      redirectUri,
      author: 'urn:li:organization:12345',
    });
    const asked = (await continueOnConsentPage(created.body.authorizationUrl)).searchParams;
    expect(asked.get('client_id')).toBe(linkedin.organizationClient.clientId);
    expect(asked.get('scope')).toBe('r_basicprofile w_organization_social r_organization_social rw_organization_admin');
    const connectionId = await connect('linkedin', 'urn:li:organization:12345');
    const connection = await workspace.client.get<Connection>(`/social-connections/${connectionId}`);
    expect(connection.body).toMatchObject({ platform: 'linkedin', accountName: 'Harbour Co' });
    const stored = await storedCredentials<LinkedInCredentials>(app.api.services.orm, app.config, connectionId);
    expect(stored).toMatchObject({ author: 'urn:li:organization:12345', app: 'authors' });
    const target = await publishWithImage(connectionId, 'Harbour lights for the company page');
    expect(target).toMatchObject({ platform: 'linkedin', status: 'Published' });
    expect(linkedin.posts.at(-1)).toMatchObject({ author: 'urn:li:organization:12345', commentary: 'Harbour lights for the company page' });

    const refused = await connectThroughOAuth(workspace.client, { platform: 'linkedin', redirectUri, author: 'urn:li:organization:999' });
    expect(refused.searchParams.get('error')).toBe('exchange_failed');
    const threadsAuthor = await workspace.client.post<Schemas['Problem']>('/social-connections/authorizations', {
      platform: 'threads',
      redirectUri,
      author: 'urn:li:organization:12345',
    });
    expect(threadsAuthor.status).toBe(400);
    expect(threadsAuthor.body.errors?.[0]?.path).toBe('/author');
  });

  it('when a post with an image is published to it, then LinkedIn gets the image with its description and the post: Published', async () => {
    const connectionId = await connect('linkedin');
    const target = await publishWithImage(connectionId, 'Harbour lights on LinkedIn');
    expect(target).toMatchObject({ platform: 'linkedin', status: 'Published' });
    const post = linkedin.posts.find((candidate) => candidate.id === target.externalPostId);
    expect(post).toMatchObject({
      author: `urn:li:person:${linkedin.member.sub}`,
      commentary: 'Harbour lights on LinkedIn',
      media: { altText: 'Boats at night' },
    });
    expect(linkedin.images.find((image) => image.urn === post?.media?.id)).toMatchObject({ contentType: 'image/png' });
  });
});

describe('LinkedIn: video', () => {
  let clip: Buffer;
  beforeAll(() => {
    // Three seconds of noise, over LinkedIn's 75 KB and 3 s minimums, in parts small enough to make several.
    clip = makeVideo({ width: 108, height: 192, seconds: 3, noise: true });
    linkedin.videoPartBytes = 128 * 1024;
  });

  const publishedTarget = async (postId: string, connectionId: string) =>
    (await publishAndWait(workspace.client, postId, { connectionIds: [connectionId] }))[0]!;

  it("when a post's video is published to it, then the video goes up in LinkedIn's parts, LinkedIn's processing is waited out, and the post carries it", async () => {
    const connectionId = await connect('linkedin');
    const target = await publishedTarget(
      await postWithVideo(app, workspace, { projectId, title: 'Harbour lights moving on LinkedIn', bytes: clip, durationMs: 3_000 }),
      connectionId,
    );
    expect(target).toMatchObject({ status: 'Published', errorMessage: null });
    expect(target.attempts.map((attempt) => attempt.outcome)).toEqual(['processing', 'processing', 'published']);
    expect(target.attempts[0]?.detail).toBe(`Uploaded the video (${Math.ceil(clip.length / (128 * 1024))} parts); LinkedIn is processing it.`);
    const post = linkedin.posts.find((candidate) => candidate.id === target.externalPostId);
    const video = linkedin.videos.find((candidate) => candidate.urn === post?.media?.id);
    expect(video?.bytes?.equals(clip)).toBe(true);
  });

  it("when the video is shorter than LinkedIn takes, then the dry run says so, and sent anyway the target fails in LinkedIn's words", async () => {
    const connectionId = await connect('linkedin');
    const short = makeVideo({ width: 108, height: 192, seconds: 2, noise: true });
    const postId = await postWithVideo(app, workspace, { projectId, title: 'Harbour lights, briefly', bytes: short, durationMs: 2_000 });
    const preview = await workspace.client.post<Schemas['PublishPreview'][]>(`/posts/${postId}/publish-social`, {
      connectionIds: [connectionId],
      dryRun: true,
    });
    expect(preview.body[0]).toMatchObject({ media: 'video', problems: [{ code: 'video_too_short' }] });

    const target = await publishedTarget(postId, connectionId);
    const refusal = 'LinkedIn could not process the video: The video lasts 2 s, not between 3 seconds and 30 minutes';
    expect(target).toMatchObject({ status: 'Failed', errorMessage: expect.stringContaining(refusal) });
    expect(target.attempts.at(-1)).toMatchObject({ outcome: 'refused', detail: expect.stringContaining(refusal) });
    expect(linkedin.posts.some((post) => post.commentary === 'Harbour lights, briefly')).toBe(false);
  });
});

describe('LinkedIn and Threads: a lost answer', () => {
  it(
    'when the answer to a LinkedIn organisation post never comes after LinkedIn made it, then the retry finds that post: Published, one post',
    { timeout: 120_000 },
    async () => {
      linkedin.acls.push({ organization: 'urn:li:organization:777', role: 'CONTENT_ADMINISTRATOR', state: 'APPROVED' });
      linkedin.organizations.set('777', 'Lighthouse Ltd');
      const connectionId = await connect('linkedin', 'urn:li:organization:777');
      linkedin.silentAfterCreate = 1;
      const target = await publishLosingTheAnswer(connectionId, 'Lost answer on LinkedIn');
      expect(linkedin.posts.filter((post) => post.commentary === 'Lost answer on LinkedIn').map((post) => post.id)).toEqual([target.externalPostId]);
    },
  );

  it(
    'when the answer to a Threads publish never comes after Threads published, then the retry finds that thread: Published, one thread',
    { timeout: 120_000 },
    async () => {
      const connectionId = await connect('threads');
      threads.timeOutAfterPublishing = 1;
      const target = await publishLosingTheAnswer(connectionId, 'Lost answer on Threads');
      expect(threads.threads.filter((thread) => thread.text === 'Lost answer on Threads').map((thread) => thread.id)).toEqual([target.externalPostId]);
    },
  );
});

describe('Threads through OAuth', () => {
  it('when the person consents, then the callback makes a connection with a long-lived token and no refresh token, and starts its keep-alive', async () => {
    const connectionId = await connect('threads');
    const connection = await workspace.client.get<Connection>(`/social-connections/${connectionId}`);
    expect(connection.body).toMatchObject({ platform: 'threads', accountName: '@alice', serverUrl: threads.url, status: 'active' });
    // Long-lived: about 60 days.
    expect(Date.parse(connection.body.expiresAt!)).toBeGreaterThan(Date.now() + 59 * 24 * 3600_000);
    const stored = await storedCredentials<ThreadsCredentials>(app.api.services.orm, app.config, connectionId);
    expect(stored).toMatchObject({ platform: 'threads', userId: threads.account.id });
    expect(stored.refreshToken).toBeUndefined();
    await expectKeptAlive(connectionId);
  });

  it('when a post with an image is published to it, then Threads fetches the image from our signed link and the post is Published', async () => {
    const connectionId = await connect('threads');
    const target = await publishWithImage(connectionId, 'Harbour lights on Threads');
    expect(target).toMatchObject({ platform: 'threads', status: 'Published' });
    const thread = threads.threads.find((candidate) => candidate.id === target.externalPostId);
    expect(thread).toMatchObject({ mediaType: 'IMAGE', text: 'Harbour lights on Threads' });
    const container = threads.containers.find((candidate) => candidate.id === thread?.containerId);
    const imageUrl = new URL(container!.imageUrl!);
    expect(imageUrl.port).toBe(new URL(app.url).port);
    expect(imageUrl.pathname).toMatch(/^\/files\//);
    expect(imageUrl.searchParams.get('signature')).toBeTruthy();
    expect(container).toMatchObject({ altText: 'Boats at night', image: { contentType: 'image/png' } });
  });

  it('when a post with an image is dry-run for it and PUBLIC_URL is not set, then the preview says Threads cannot fetch the image', async () => {
    const connectionId = await connect('threads');
    const id = (await workspace.client.post<{ id: string }>('/posts', { title: 'Dry run', prompt: 'Boats at night', projectId })).body.id;
    expect((await workspace.client.post(`/posts/${id}/generate`)).status).toBe(200);
    const before = threads.containers.length;
    const response = await workspace.client.post<Schemas['PublishPreview'][]>(`/posts/${id}/publish-social`, { connectionIds: [connectionId], dryRun: true });
    expect(response.status).toBe(200);
    expect(response.body[0]?.problems).toEqual([{ code: 'public_url_unreachable', message: expect.stringContaining('PUBLIC_URL is not set') }]);
    expect(threads.containers).toHaveLength(before);
  });
});
