import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { startSlackServer, type SlackServer } from '../fakes/slack-server.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import { publishAndWait } from '../support/published-targets.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// Slack as a platform of the service, through the API with the real worker and the Slack fake: a channel connected
// with a bot token, published to with an image, a rate limit waited out as Slack asked, a refusal taken as final.

type Connection = Schemas['SocialConnection'];
type Target = Schemas['PublishTarget'];

let slack: SlackServer;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
let connectionId: string;

beforeAll(async () => {
  slack = await startSlackServer();
  ({ app, workspace, projectId } = await startAppWithWorkspace({
    env: { SLACK_API_URL: slack.url, SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true', API_WAIT_SECONDS: '10' },
    project: 'Slack',
  }));
  const created = await workspace.client.post<Connection>('/social-connections', { platform: 'slack', botToken: slack.botToken, channelId: 'C0NEWS0001' });
  expect(created.status).toBe(201);
  connectionId = created.body.id;
});
afterAll(async () => {
  await app?.stop();
  await slack?.close();
});

/** A post, its image generated when asked, published to the Slack connection now; its target once the publication has ended. */
async function publish(title: string, { withImage }: { withImage: boolean }): Promise<Target> {
  const id = (await workspace.client.post<{ id: string }>('/posts', { title, prompt: 'Boats at night', projectId })).body.id;
  if (withImage) expect((await workspace.client.post(`/posts/${id}/generate`)).status).toBe(200);
  return (await publishAndWait(workspace.client, id, { connectionIds: [connectionId] }))[0]!;
}

describe('Slack connections', () => {
  it('when a bot token and channel are given, then the channel is connected, named as Slack names it, and the token is not shown', async () => {
    const listed = await workspace.client.get<Connection>(`/social-connections/${connectionId}`);
    expect(listed.body).toMatchObject({ platform: 'slack', accountName: '#news (Acme)', serverUrl: 'https://acme.slack.com/', status: 'active' });
    expect(JSON.stringify(listed.body)).not.toContain(slack.botToken);
  });

  it('when the token is wrong, or the app is not in the channel, then 400 names the field with Slack’s words', async () => {
    const wrongToken = await workspace.client.post('/social-connections', { platform: 'slack', botToken: 'xoxb-wrong', channelId: 'C0NEWS0001' });
    expect(wrongToken.status).toBe(400);
    expect(wrongToken.body).toMatchObject({ errors: [{ path: '/botToken', message: expect.stringContaining('invalid_auth') }] });
    const outside = await workspace.client.post('/social-connections', { platform: 'slack', botToken: slack.botToken, channelId: 'C0OTHER001' });
    expect(outside.status).toBe(400);
    expect(outside.body).toMatchObject({ errors: [{ path: '/channelId', message: expect.stringContaining('#other') }] });
  });

  it('when the platforms are listed, then Slack is there, configured, counting characters, without threads', async () => {
    const platforms = await workspace.client.get<Schemas['SocialPlatformEntry'][]>('/social-platforms');
    expect(platforms.body.find((entry) => entry.platform === 'slack')).toMatchObject({
      auth: 'token',
      configured: true,
      text: { max: 4000, unit: 'characters' },
      images: { altText: true },
      threads: false,
      retriesNeverDuplicate: { guaranteed: false },
    });
  });
});

describe('publishing to Slack', () => {
  it('when the post has an image, then one message carries the title and the image with its description, and its ts is the post id', async () => {
    const target = await publish('Harbour lights', { withImage: true });
    expect(target.status).toBe('Published');
    const message = slack.messages.find((candidate) => candidate.ts === target.externalPostId);
    expect(message).toMatchObject({ channel: 'C0NEWS0001', text: 'Harbour lights' });
    expect(message!.files).toHaveLength(1);
    expect(message!.files[0]).toMatchObject({ altText: 'Boats at night', contentType: 'image/png' });
    expect(message!.files[0]!.bytes!.subarray(1, 4).toString()).toBe('PNG');
  });

  it('when Slack rate-limits the post once, then the next attempt is due Retry-After later and comes no sooner, and the post is published once', async () => {
    slack.rateLimitOnce('chat.postMessage', 3);
    const target = await publish('Tide tables for Tuesday', { withImage: false });
    expect(target.status).toBe('Published');
    expect(target.attempts.map(({ outcome }) => outcome)).toEqual(['rate_limited', 'published']);
    const [rateLimited, published] = target.attempts;
    // Recorded when the attempt began: the wait Slack asked for runs from its failure, a little later.
    expect(Date.parse(rateLimited!.nextAttemptAt!) - Date.parse(rateLimited!.at)).toBeGreaterThanOrEqual(3_000);
    expect(Date.parse(published!.at)).toBeGreaterThanOrEqual(Date.parse(rateLimited!.nextAttemptAt!));
    expect(slack.messages.filter((message) => message.text === 'Tide tables for Tuesday')).toHaveLength(1);
  });

  it('when Slack refuses the post, then the target fails after one attempt, refused in Slack’s words, with no next attempt', async () => {
    slack.refuseOnce('chat.postMessage', 'channel_not_found');
    const target = await publish('Lost channel', { withImage: false });
    expect(target).toMatchObject({ status: 'Failed', errorMessage: expect.stringContaining('channel_not_found') });
    expect(target.attempts).toEqual([
      {
        at: expect.any(String),
        outcome: 'refused',
        detail: 'Slack refused the chat.postMessage request: channel_not_found',
        nextAttemptAt: null,
        answers: null,
      },
    ]);
    expect(slack.messages.filter((message) => message.text === 'Lost channel')).toHaveLength(0);
  });
});
