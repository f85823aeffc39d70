import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FacebookCredentials } from '../../src/adapters/social/social-connector.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import type { Schemas } from '../../src/api/schemas.ts';
import { startFacebookServer, type FacebookServer } from '../fakes/facebook-server.ts';
import { connectThroughOAuth, facebookEnv, storedCredentials } from '../support/oauth-connections.ts';
import { postWithVideo } from '../support/post-with-video.ts';
import { generatedPost, publishedTarget, redirectUri, startOAuthPlatformApp, type OAuthPlatformApp } from '../support/oauth-platform-app.ts';
import type { TestApp } from '../support/test-app.ts';
import { makeVideo } from '../support/video-files.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// Facebook Pages as a platform of the service, against its fake: connected through the whole OAuth round trip, the
// Page chosen, then posts published through the worker (a photo, a video, a refusal, a rate limit, a lost answer).

type Connection = Schemas['SocialConnection'];

let facebook: FacebookServer;
let service: OAuthPlatformApp;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
let connectionId: string;

beforeAll(async () => {
  facebook = await startFacebookServer();
  service = await startOAuthPlatformApp(facebookEnv(facebook), 'Facebook');
  ({ app, workspace, projectId } = service);
});
afterAll(async () => {
  await app?.stop();
  await facebook?.close();
});
beforeEach(() => {
  facebook.videoProcessingChecks = 0;
});

const post = (title: string, format?: '1:1' | '9:16') => generatedPost(service, title, format);
const publishedTo = (postId: string) => publishedTarget(service, postId, connectionId);
const postsTitled = (title: string) => facebook.posts.filter((post) => post.message === title);

describe('Facebook through OAuth, and its Page', () => {
  it('when the person consents, then the connection is theirs, kept alive, with a long-lived token sealed and no Page yet', async () => {
    const back = await connectThroughOAuth(workspace.client, { platform: 'facebook', redirectUri });
    expect(back.searchParams.get('error')).toBeNull();
    connectionId = back.searchParams.get('connectionId')!;
    const connection = await workspace.client.get<Connection>(`/social-connections/${connectionId}`);
    expect(connection.body).toMatchObject({ platform: 'facebook', accountName: facebook.user.name, status: 'active', destination: null });
    const stored = await storedCredentials<FacebookCredentials>(app.api.services.orm, app.config, connectionId);
    expect(Date.parse(stored.expiresAt)).toBeGreaterThan(Date.now() + 59 * 86_400_000);
    expect(JSON.stringify(connection.body)).not.toContain(stored.accessToken);
    const keepAlive = await app.api.services.temporal.workflow.getHandle(workflowIds.socialConnection(connectionId)).describe();
    expect(keepAlive.status.name).toBe('RUNNING');
  });

  it('when no Page is chosen, then the dry run says so; once the Pages are listed one is chosen', async () => {
    const preview = await workspace.client.post<Schemas['PublishPreview'][]>(`/posts/${await post('Pages first')}/publish-social`, {
      connectionIds: [connectionId],
      dryRun: true,
    });
    expect(preview.body[0]!.problems).toContainEqual({ code: 'destination_needed', message: expect.stringContaining('No page has been chosen') });

    const listed = await workspace.client.get<Schemas['SocialDestinationList']>(`/social-connections/${connectionId}/destinations`);
    const page = facebook.pages[0]!;
    expect(listed.body).toEqual({ what: 'page', data: [{ id: page.id, name: page.name }] });
    const chosen = await workspace.client.call<Connection>('PATCH', `/social-connections/${connectionId}`, { body: { destination: page.id } });
    expect(chosen.body.destination).toEqual({ id: page.id, name: page.name });
  });
});

describe('publishing to a Facebook Page', () => {
  it('when the post has an image, then it goes to the Page as a photo, once', async () => {
    const target = await publishedTo(await post('Harbour lights on Facebook'));
    expect(target).toMatchObject({ status: 'Published', errorMessage: null });
    expect(postsTitled('Harbour lights on Facebook')).toEqual([expect.objectContaining({ kind: 'photo', pageId: facebook.pages[0]!.id })]);
    expect(target.externalPostId).toBe(postsTitled('Harbour lights on Facebook')[0]!.id);
  });

  it('when the post has a video, then it is uploaded once and published once Facebook has processed it', async () => {
    facebook.videoProcessingChecks = 1;
    const clip = makeVideo({ width: 108, height: 192, seconds: 2 });
    const target = await publishedTo(await postWithVideo(app, workspace, { projectId, title: 'Harbour video on Facebook', bytes: clip, durationMs: 2_000 }));
    expect(target).toMatchObject({ status: 'Published', errorMessage: null });
    expect(target.attempts.map((attempt) => attempt.outcome)).toEqual(['processing', 'published']);
    const videos = facebook.videos.filter((video) => video.bytes.equals(clip));
    expect(videos).toHaveLength(1);
    expect(target.externalPostId).toBe(videos[0]!.id);
  });

  it('when Facebook refuses the post, then the target fails after one attempt in its words', async () => {
    facebook.script('photos', [{ status: 400, code: 100, message: 'Invalid parameter' }]);
    const target = await publishedTo(await post('Refused by Facebook'));
    expect(target).toMatchObject({ status: 'Failed', errorMessage: expect.stringMatching(/^Facebook refused the post \(400, code 100\)/) });
    expect(target.attempts).toEqual([expect.objectContaining({ outcome: 'refused', nextAttemptAt: null })]);
  });

  it('when Facebook throttles the Page once, then the next attempt comes after its wait and one post is made', async () => {
    facebook.script('photos', [{ status: 400, code: 32, retryAfter: '2' }]);
    const target = await publishedTo(await post('Tide tables on Facebook'));
    expect(target.attempts.map((attempt) => attempt.outcome)).toEqual(['rate_limited', 'published']);
    const [limited, published] = target.attempts;
    expect(Date.parse(limited!.nextAttemptAt!) - Date.parse(limited!.at)).toBeGreaterThanOrEqual(2_000);
    expect(Date.parse(published!.at)).toBeGreaterThanOrEqual(Date.parse(limited!.nextAttemptAt!));
    expect(postsTitled('Tide tables on Facebook')).toHaveLength(1);
  });

  it('when the answer to the post is lost after Facebook made it, then the retry finds it on the Page and the target is Published once', async () => {
    facebook.timeOutAfterPosting = 1;
    const target = await publishedTo(await post('Lost answer on Facebook'));
    expect(target.status).toBe('Published');
    expect(target.attempts.map((attempt) => attempt.outcome)).toEqual(['unknown', 'published']);
    expect(postsTitled('Lost answer on Facebook')).toHaveLength(1);
    expect(target.externalPostId).toBe(postsTitled('Lost answer on Facebook')[0]!.id);
  });
});
