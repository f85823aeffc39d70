import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PinterestCredentials } from '../../src/adapters/social/social-connector.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import type { Schemas } from '../../src/api/schemas.ts';
import { startPinterestServer, type PinterestServer } from '../fakes/pinterest-server.ts';
import { connectThroughOAuth, createOAuthConnectionFixture, pinterestEnv, storedCredentials } from '../support/oauth-connections.ts';
import { postWithVideo } from '../support/post-with-video.ts';
import { generatedPost, publishedTarget, redirectUri, startOAuthPlatformApp, type OAuthPlatformApp } from '../support/oauth-platform-app.ts';
import type { TestApp } from '../support/test-app.ts';
import { makeVideo } from '../support/video-files.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// Pinterest as a platform of the service, against its fake: connected through the whole OAuth round trip, its board
// chosen, then Pins published through the worker (an image, a video, a refusal, a rate limit, a lost answer).

type Connection = Schemas['SocialConnection'];

let pinterest: PinterestServer;
let service: OAuthPlatformApp;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
let connectionId: string;

beforeAll(async () => {
  pinterest = await startPinterestServer();
  service = await startOAuthPlatformApp(pinterestEnv(pinterest), 'Pinterest');
  ({ app, workspace, projectId } = service);
});
afterAll(async () => {
  await app?.stop();
  await pinterest?.close();
});
beforeEach(() => {
  pinterest.videoProcessingChecks = 0;
});

const post = (title: string, format?: '1:1' | '9:16') => generatedPost(service, title, format);
const publishedTo = (postId: string) => publishedTarget(service, postId, connectionId);

describe('Pinterest through OAuth, and its board', () => {
  it('when the person consents, then the callback makes a connection with no board yet, kept alive, whose tokens are sealed', async () => {
    const back = await connectThroughOAuth(workspace.client, { platform: 'pinterest', redirectUri });
    expect(back.searchParams.get('error')).toBeNull();
    connectionId = back.searchParams.get('connectionId')!;
    const connection = await workspace.client.get<Connection>(`/social-connections/${connectionId}`);
    expect(connection.body).toMatchObject({
      platform: 'pinterest',
      accountName: pinterest.account.username,
      serverUrl: pinterest.url,
      status: 'active',
      destination: null,
    });
    const stored = await storedCredentials<PinterestCredentials>(app.api.services.orm, app.config, connectionId);
    expect(stored.refreshToken).toBe(pinterest.currentRefreshToken());
    expect(JSON.stringify(connection.body)).not.toContain(stored.accessToken);
    const keepAlive = await app.api.services.temporal.workflow.getHandle(workflowIds.socialConnection(connectionId)).describe();
    expect(keepAlive.status.name).toBe('RUNNING');
  });

  it('when no board is chosen, then the dry run says so and names the way to choose one', async () => {
    const id = await post('Boards first');
    const preview = await workspace.client.post<Schemas['PublishPreview'][]>(`/posts/${id}/publish-social`, { connectionIds: [connectionId], dryRun: true });
    expect(preview.body[0]!.problems).toContainEqual({ code: 'destination_needed', message: expect.stringContaining('PATCH /social-connections/{id}') });
  });

  it('when the boards are listed and one is chosen, then the connection shows it; a board the account does not have is refused naming destination', async () => {
    const listed = await workspace.client.get<Schemas['SocialDestinationList']>(`/social-connections/${connectionId}/destinations`);
    // Secret boards are not asked for (boards:read_secret), so Pinterest leaves them out.
    const visible = pinterest.boards.filter((board) => board.privacy !== 'SECRET');
    expect(listed.body).toEqual({ what: 'board', data: visible.map(({ id, name }) => ({ id, name })) });

    const refused = await workspace.client.call('PATCH', `/social-connections/${connectionId}`, { body: { destination: '999' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errors: [{ location: 'body', path: 'destination' }] });

    const board = pinterest.boards[0]!;
    const chosen = await workspace.client.call<Connection>('PATCH', `/social-connections/${connectionId}`, { body: { destination: board.id } });
    expect(chosen.status).toBe(200);
    expect(chosen.body.destination).toEqual({ id: board.id, name: board.name });
  });

  it('when a connection of a platform without destinations is asked for them, or given one, then 400 says it posts to the account itself', async () => {
    const x = await createOAuthConnectionFixture(app.api.services.orm, app.config, {
      workspaceId: workspace.id,
      credentials: { platform: 'x', accessToken: 'token', expiresAt: new Date(Date.now() + 3_600_000).toISOString(), userId: '1' },
      serverUrl: 'https://api.x.com',
      accountName: '@alice',
      accountId: '1',
    });
    for (const answer of [
      await workspace.client.get(`/social-connections/${x.id}/destinations`),
      await workspace.client.call('PATCH', `/social-connections/${x.id}`, { body: { destination: '1' } }),
    ]) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ detail: 'X connections post to the account itself; they have no destinations to choose.' });
    }
    expect((await workspace.client.get(`/social-connections/${randomUUID()}/destinations`)).status).toBe(404);
  });
});

describe('publishing to Pinterest', () => {
  it('when the post has an image, then the Pin carries it on the chosen board with the title and the alt text', async () => {
    const target = await publishedTo(await post('Harbour lights on Pinterest'));
    expect(target).toMatchObject({ status: 'Published', errorMessage: null });
    const pin = pinterest.pins.find((candidate) => candidate.id === target.externalPostId);
    expect(pin).toMatchObject({ boardId: pinterest.boards[0]!.id, title: 'Harbour lights on Pinterest', altText: 'Boats at night' });
    expect(pin?.media.kind).toBe('image');
  });

  it('when the post has a video, then it is registered, uploaded once, waited for, and the Pin carries it', async () => {
    pinterest.videoProcessingChecks = 1;
    const clip = makeVideo({ width: 108, height: 192, seconds: 4 });
    const target = await publishedTo(
      await postWithVideo(app, workspace, { projectId, title: 'Harbour lights moving on Pinterest', bytes: clip, durationMs: 4_000 }),
    );
    expect(target).toMatchObject({ status: 'Published', errorMessage: null });
    expect(target.attempts.map((attempt) => attempt.outcome)).toEqual(['processing', 'published']);
    const pin = pinterest.pins.find((candidate) => candidate.id === target.externalPostId)!;
    expect(pin.media.kind).toBe('video');
    expect(pinterest.media.get(pin.media.kind === 'video' ? pin.media.mediaId : '')?.bytes?.equals(clip)).toBe(true);
  });

  it('when Pinterest refuses the Pin, then the target fails after one attempt in its words', async () => {
    pinterest.script('pins', [{ status: 400 }]);
    const target = await publishedTo(await post('Refused by Pinterest'));
    expect(target).toMatchObject({ status: 'Failed', errorMessage: expect.stringMatching(/^Pinterest refused the Pin \(400\)/) });
    expect(target.attempts).toEqual([
      expect.objectContaining({ outcome: 'refused', nextAttemptAt: null, detail: expect.stringMatching(/^Pinterest refused the Pin \(400\): code \d+/) }),
    ]);
  });

  it('when Pinterest rate-limits the Pin once, then the next attempt is due after its wait and comes no sooner, and one Pin is made', async () => {
    pinterest.script('pins', [{ status: 429, retryAfter: '2' }]);
    const target = await publishedTo(await post('Tide tables on Pinterest'));
    expect(target.attempts.map((attempt) => attempt.outcome)).toEqual(['rate_limited', 'published']);
    const [limited, published] = target.attempts;
    expect(Date.parse(limited!.nextAttemptAt!) - Date.parse(limited!.at)).toBeGreaterThanOrEqual(2_000);
    expect(Date.parse(published!.at)).toBeGreaterThanOrEqual(Date.parse(limited!.nextAttemptAt!));
    expect(pinterest.pins.filter((pin) => pin.title === 'Tide tables on Pinterest')).toHaveLength(1);
  });

  it('when the answer to the Pin is lost after Pinterest made it, then the retry finds it on the board and the target is Published once', async () => {
    pinterest.timeOutAfterNextPin = true;
    const target = await publishedTo(await post('Lost answer on Pinterest'));
    expect(target.status).toBe('Published');
    expect(target.attempts.map((attempt) => attempt.outcome)).toEqual(['unknown', 'published']);
    const made = pinterest.pins.filter((pin) => pin.title === 'Lost answer on Pinterest');
    expect(made).toHaveLength(1);
    expect(target.externalPostId).toBe(made[0]!.id);
  });
});
