import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/adapters/crypto/secret-box.ts';
import { PublishTarget } from '../../src/adapters/database/entities/publish-target.ts';
import { SocialConnection } from '../../src/adapters/database/entities/social-connection.ts';
import { socialPlatforms, type SocialCredentials, type SocialPlatform } from '../../src/adapters/social/social-connector.ts';
import type { Schemas } from '../../src/api/schemas.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import { postWithVideo } from '../support/post-with-video.ts';
import type { TestApp } from '../support/test-app.ts';
import { makeVideo } from '../support/video-files.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// The dry run of one post with an image and a video to a connection of every platform in the catalogue, on a
// service with none of the OAuth apps configured and no public address: nothing is published or recorded, and each
// preview names every problem its platform would meet, no more.

type Preview = Schemas['PublishPreview'];

let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;

const inAMonth = () => new Date(Date.now() + 30 * 86_400_000).toISOString();
const oauth = { accessToken: 'token', refreshToken: 'refresh', expiresAt: inAMonth() };

// One account's credentials per platform, as each connection keeps them.
const credentialsOf: { [P in SocialPlatform]: Extract<SocialCredentials, { platform: P }> } = {
  mastodon: { platform: 'mastodon', instanceUrl: 'https://mastodon.example', accessToken: 'token' },
  bluesky: { platform: 'bluesky', serviceUrl: 'https://bsky.example', handle: 'alice.bsky.example', appPassword: 'abcd-efgh-ijkl-mnop' },
  x: { ...oauth, platform: 'x', userId: '1' },
  linkedin: { ...oauth, platform: 'linkedin', author: 'urn:li:person:1' },
  threads: { ...oauth, platform: 'threads', userId: '1' },
  nostr: { platform: 'nostr', secretKey: '1'.repeat(64), relays: ['wss://relay.example'] },
  telegram: { platform: 'telegram', botToken: '1:token', chatId: '@channel' },
  discord: { platform: 'discord', webhookUrl: 'https://discord.com/api/webhooks/1/token' },
  slack: { platform: 'slack', botToken: 'xoxb-token', channelId: 'C0123ABCD' },
  pinterest: { ...oauth, platform: 'pinterest' },
  youtube: { ...oauth, platform: 'youtube', channelId: 'UC1' },
  instagram: { ...oauth, platform: 'instagram', userId: '1' },
  tiktok: { ...oauth, platform: 'tiktok', openId: '1' },
  facebook: { ...oauth, platform: 'facebook', userId: '1' },
};

// What each platform would meet with this post (its 1 s, 108×192, 9:16 video goes everywhere, since every platform
// takes video), on this service: the OAuth apps not configured, the public address on loopback.
const notConfigured = 'platform_not_configured';
const expected: Record<SocialPlatform, string[]> = {
  mastodon: [],
  bluesky: [],
  x: [notConfigured],
  // LinkedIn takes videos from 3 s and 75 KB.
  linkedin: [notConfigured, 'video_too_small', 'video_too_short'],
  // Threads and Instagram fetch the video from a link of ours; a Nostr note carries one.
  threads: [notConfigured, 'public_url_unreachable'],
  nostr: ['public_url_unreachable'],
  telegram: [],
  discord: [],
  slack: [],
  // Pinterest takes videos from 4 s; its board is not chosen.
  pinterest: ['destination_needed', notConfigured, 'video_too_short'],
  youtube: [notConfigured],
  instagram: [notConfigured, 'public_url_unreachable', 'video_too_short'],
  tiktok: ['destination_needed', notConfigured, 'video_too_short'],
  facebook: ['destination_needed', notConfigured],
};

beforeAll(async () => {
  ({ app, workspace, projectId } = await startAppWithWorkspace({ project: 'Every platform' }));
});
afterAll(() => app?.stop());

/** A connection of the workspace with these credentials, written straight to the database; its id. */
async function connectionOf(credentials: SocialCredentials): Promise<string> {
  const em = app.api.services.orm.em.fork();
  const connection = em.create(SocialConnection, {
    workspaceId: workspace.id,
    platform: credentials.platform,
    serverUrl: 'https://platform.example',
    accountName: `${credentials.platform} account`,
    accountId: '1',
    credentialsSealed: createSecretBox(app.config.secrets.encryptionKeys, 'secrets').seal(JSON.stringify(credentials)),
    sessionSealed: null,
    postLanguage: null,
    expiresAt: 'expiresAt' in credentials ? new Date(credentials.expiresAt) : null,
  });
  await em.flush();
  return connection.id;
}

describe('the dry run of a post with an image and a video to every platform', () => {
  it('when it is asked, then it publishes nothing and each preview names every problem its platform would meet', async () => {
    const ids = await Promise.all(socialPlatforms.map((platform) => connectionOf(credentialsOf[platform])));
    const postId = await postWithVideo(app, workspace, { projectId, title: 'Harbour lights everywhere', bytes: makeVideo(), durationMs: 1_000 });

    const response = await workspace.client.post<Preview[]>(`/posts/${postId}/publish-social`, { connectionIds: ids, dryRun: true });

    expect(response.status).toBe(200);
    expect(response.body.map((preview) => preview.platform)).toEqual([...socialPlatforms]);
    const problems = Object.fromEntries(response.body.map((preview) => [preview.platform, preview.problems.map((problem) => problem.code).sort()]));
    expect(problems).toEqual(Object.fromEntries(socialPlatforms.map((platform) => [platform, [...expected[platform]].sort()])));
    expect(response.body.every((preview) => preview.media === 'video')).toBe(true);
    expect(await app.api.services.orm.em.fork().count(PublishTarget, { postId })).toBe(0);
  });
});
