import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkedInMemberScopes } from '../../src/adapters/social/linkedin/linkedin-oauth.ts';
import { createHash, randomBytes } from 'node:crypto';
import got from 'got';
import { createPinterestOAuth } from '../../src/adapters/social/pinterest/pinterest-oauth.ts';
import type { OAuthClient, OAuthPlatform, OAuthTokens } from '../../src/adapters/social/oauth-platform.ts';
import type {
  LinkedInCredentials,
  OAuthCredentials,
  PinterestCredentials,
  ThreadsCredentials,
  InstagramCredentials,
  FacebookCredentials,
  TikTokCredentials,
  YouTubeCredentials,
} from '../../src/adapters/social/social-connector.ts';
import { createYouTubeOAuth } from '../../src/adapters/social/youtube/youtube-oauth.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { keepConnectionAlive } from '../../workflows/keep-connection-alive.ts';
import { startFacebookServer, type FacebookServer } from '../fakes/facebook-server.ts';
import { startInstagramServer, type InstagramServer } from '../fakes/instagram-server.ts';
import { startLinkedInServer, type LinkedInServer } from '../fakes/linkedin-server.ts';
import { startPinterestServer, type PinterestServer } from '../fakes/pinterest-server.ts';
import { startThreadsServer, type ThreadsServer } from '../fakes/threads-server.ts';
import { startTikTokServer, type TikTokServer } from '../fakes/tiktok-server.ts';
import { startYouTubeServer, type YouTubeServer } from '../fakes/youtube-server.ts';
import { eventually } from '../support/eventually.ts';
import {
  createOAuthConnectionFixture,
  facebookEnv,
  instagramEnv,
  linkedInEnv,
  pinterestEnv,
  storedCredentials,
  threadsEnv,
  tikTokEnv,
  youTubeEnv,
} from '../support/oauth-connections.ts';
import { createPostFixture } from '../support/post-fixtures.ts';
import { startWorkflowTestBed, type WorkflowTestBed } from '../support/workflow-test-bed.ts';

// The keep-alive workflow for LinkedIn (whose refresh token comes back unchanged), Threads and Instagram (which have
// none: their long-lived access tokens refresh themselves), Facebook (whose long-lived user token is exchanged again), Pinterest and TikTok (which rotate it) and YouTube
// (Google's, which does not), on the time-skipping server with the real activities against the fakes. (X's rotation is in keep-connection-alive.test.ts.)

const dayMs = 24 * 60 * 60 * 1000;

let linkedin: LinkedInServer;
let threads: ThreadsServer;
let pinterest: PinterestServer;
let youtube: YouTubeServer;
let instagram: InstagramServer;
let tiktok: TikTokServer;
let facebook: FacebookServer;
let bed: WorkflowTestBed;

beforeAll(async () => {
  [linkedin, threads, pinterest, youtube, instagram, tiktok, facebook] = await Promise.all([
    startLinkedInServer(),
    startThreadsServer(),
    startPinterestServer(),
    startYouTubeServer(),
    startInstagramServer(),
    startTikTokServer(),
    startFacebookServer(),
  ]);
  bed = await startWorkflowTestBed({
    ...linkedInEnv(linkedin, { organizationApp: true }),
    ...threadsEnv(threads),
    ...pinterestEnv(pinterest),
    ...youTubeEnv(youtube),
    ...instagramEnv(instagram),
    ...tikTokEnv(tiktok),
    ...facebookEnv(facebook),
  });
  await bed.startWorker();
});
afterAll(async () => {
  await bed?.stop();
  await Promise.all([linkedin?.close(), threads?.close(), pinterest?.close(), youtube?.close(), instagram?.close(), tiktok?.close(), facebook?.close()]);
});

function start(connectionId: string) {
  return bed.client.workflow.start(keepConnectionAlive, {
    workflowId: workflowIds.socialConnection(connectionId),
    taskQueue: bed.taskQueue,
    args: [{ connectionId }],
  });
}

/** A connection with these credentials (its access token expiring in a minute), kept alive until it is refreshed: its credentials then. */
async function refreshedByKeepAlive<C extends OAuthCredentials>(
  credentials: C,
  account: { serverUrl: string; accountName: string; accountId: string },
): Promise<C> {
  const { workspaceId } = await createPostFixture(bed.orm);
  const connection = await createOAuthConnectionFixture(bed.orm, bed.config, { workspaceId, credentials, ...account });
  const handle = await start(connection.id);
  const after = await eventually(async () => {
    const stored = await storedCredentials<C>(bed.orm, bed.config, connection.id);
    expect(stored.accessToken).not.toBe(credentials.accessToken);
    return stored;
  });
  await handle.terminate('test over');
  return after;
}

/** Tokens through the platform's whole flow (its consent page, the code exchanged with PKCE). */
async function tokensThroughConsent(oauth: OAuthPlatform, client: OAuthClient, platform: string): Promise<OAuthTokens> {
  const callbackUrl = `https://content.example/oauth/${platform}/callback`;
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const consented = await got(oauth.authorizationUrl({ client, callbackUrl, state: 'fixture', codeChallenge: challenge }), { followRedirect: false });
  const code = new URL(consented.headers.location ?? '').searchParams.get('code') ?? '';
  return oauth.exchangeCode({ client, callbackUrl, code, codeVerifier: verifier });
}

const inAMinute = () => new Date(Date.now() + 60_000).toISOString();

describe('keepConnectionAlive for LinkedIn, Threads, Instagram, Facebook, Pinterest, TikTok and YouTube', () => {
  it('when a LinkedIn access token expires in a minute, then it is refreshed in time and the refresh token, which LinkedIn does not rotate, is kept', async () => {
    const { accessToken, refreshToken } = linkedin.grantTokens([...linkedInMemberScopes]);
    const author = `urn:li:person:${linkedin.member.sub}`;
    const credentials: LinkedInCredentials = { platform: 'linkedin', accessToken, refreshToken, expiresAt: inAMinute(), author };
    const after = await refreshedByKeepAlive(credentials, { serverUrl: linkedin.url, accountName: linkedin.member.name, accountId: author });
    expect(after).toMatchObject({ refreshToken, author, refreshTokenExpiresAt: expect.any(String) });
    expect(Date.parse(after.expiresAt)).toBeGreaterThan(Date.now() + 59 * dayMs);
    expect(linkedin.tokenRequests.at(-1)?.get('grant_type')).toBe('refresh_token');
  });

  it("when an organisation's tokens came from the organisation app, then that app's client refreshes them", async () => {
    const { accessToken, refreshToken } = linkedin.grantTokens([...linkedin.organizationAppScopes], linkedin.organizationClient.clientId);
    const author = 'urn:li:organization:2414183';
    const credentials: LinkedInCredentials = { platform: 'linkedin', accessToken, refreshToken, expiresAt: inAMinute(), author, app: 'authors' };
    const after = await refreshedByKeepAlive(credentials, { serverUrl: linkedin.url, accountName: 'Devtestco', accountId: author });
    expect(after).toMatchObject({ refreshToken, author, app: 'authors' });
    expect(linkedin.tokenRequests.at(-1)?.get('client_id')).toBe(linkedin.organizationClient.clientId);
  });

  it('when a Threads long-lived token expires in a minute, then it is refreshed with itself for another 60 days, with no refresh token', async () => {
    // Threads refreshes only tokens at least a day old.
    const accessToken = threads.issueToken('long', 2 * dayMs);
    const credentials: ThreadsCredentials = { platform: 'threads', accessToken, expiresAt: inAMinute(), userId: threads.account.id };
    const account = { serverUrl: threads.url, accountName: `@${threads.account.username}`, accountId: threads.account.id };
    const after = await refreshedByKeepAlive(credentials, account);
    expect(after.refreshToken).toBeUndefined();
    expect(Date.parse(after.expiresAt)).toBeGreaterThan(Date.now() + 59 * dayMs);
    expect(threads.requests.filter((request) => request.path === '/refresh_access_token')).toHaveLength(1);
  });

  it('when an Instagram long-lived token expires in a minute, then it is refreshed with itself for another 60 days, with no refresh token', async () => {
    // Instagram refreshes only tokens at least a day old.
    const accessToken = instagram.issueToken('long', 2 * dayMs);
    const credentials: InstagramCredentials = { platform: 'instagram', accessToken, expiresAt: inAMinute(), userId: instagram.account.userId };
    const account = { serverUrl: instagram.url, accountName: `@${instagram.account.username}`, accountId: instagram.account.userId };
    const after = await refreshedByKeepAlive(credentials, account);
    expect(after.refreshToken).toBeUndefined();
    expect(Date.parse(after.expiresAt)).toBeGreaterThan(Date.now() + 59 * dayMs);
    expect(instagram.requests.filter((request) => request.path === '/refresh_access_token')).toHaveLength(1);
  });

  it('when a TikTok access token expires in a minute, then it is refreshed for another day, and the rotated refresh token is kept in place of the old', async () => {
    const { accessToken, refreshToken } = tiktok.issueTokens();
    const credentials: TikTokCredentials = { platform: 'tiktok', accessToken, refreshToken, expiresAt: inAMinute(), openId: tiktok.account.openId };
    const account = { serverUrl: tiktok.url, accountName: tiktok.account.displayName, accountId: tiktok.account.openId };
    const after = await refreshedByKeepAlive(credentials, account);
    expect(after.refreshToken).toEqual(expect.any(String));
    expect(after.refreshToken).not.toBe(refreshToken);
    expect(Date.parse(after.expiresAt)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
  });

  it('when a Facebook user token expires in a minute, then it is exchanged for a long-lived one again, with no refresh token', async () => {
    const accessToken = facebook.issueUserToken('long');
    const credentials: FacebookCredentials = { platform: 'facebook', accessToken, expiresAt: inAMinute(), userId: facebook.user.id };
    const after = await refreshedByKeepAlive(credentials, { serverUrl: facebook.url, accountName: facebook.user.name, accountId: facebook.user.id });
    expect(after.refreshToken).toBeUndefined();
    expect(Date.parse(after.expiresAt)).toBeGreaterThan(Date.now() + 59 * dayMs);
  });

  it('when a Pinterest access token expires in a minute, then it is refreshed in time, and the rotated refresh token is kept in place of the old, which Pinterest retired', async () => {
    const oauth = createPinterestOAuth({ allowPrivateNetworks: true, apiUrl: pinterest.url, authorizeUrl: pinterest.authorizeUrl });
    const tokens = await tokensThroughConsent(oauth, pinterest.client, 'pinterest');
    const credentials: PinterestCredentials = {
      platform: 'pinterest',
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      expiresAt: inAMinute(),
    };
    const after = await refreshedByKeepAlive(credentials, {
      serverUrl: pinterest.url,
      accountName: pinterest.account.username,
      accountId: pinterest.account.id,
    });
    expect(after.refreshToken).toBe(pinterest.currentRefreshToken());
    expect(pinterest.retiredRefreshTokens).toContain(tokens.refreshToken);
    expect(Date.parse(after.refreshTokenExpiresAt!)).toBeGreaterThan(Date.now() + 59 * dayMs);
  });

  it("when a YouTube access token expires in a minute, then Google's refresh gives a new one for an hour, and the refresh token, which Google does not rotate, is kept", async () => {
    const oauth = createYouTubeOAuth({ allowPrivateNetworks: true, apiUrl: youtube.url, authorizeUrl: youtube.authorizeUrl, tokenUrl: youtube.tokenUrl });
    const tokens = await tokensThroughConsent(oauth, youtube.client, 'youtube');
    const channelId = youtube.channel.id;
    const credentials: YouTubeCredentials = {
      platform: 'youtube',
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      expiresAt: inAMinute(),
      channelId,
    };
    const after = await refreshedByKeepAlive(credentials, { serverUrl: youtube.url, accountName: youtube.channel.customUrl, accountId: channelId });
    expect(after).toMatchObject({ refreshToken: tokens.refreshToken, channelId: youtube.channel.id });
    expect(Date.parse(after.expiresAt)).toBeGreaterThan(Date.now() + 50 * 60_000);
  });
});
