import type { Config } from '../../src/config.ts';
import { createSecretBox } from '../../src/adapters/crypto/secret-box.ts';
import { SocialConnection } from '../../src/adapters/database/entities/social-connection.ts';
import type { Database } from '../../src/adapters/database/orm.ts';
import type { OAuthCredentials, SocialCredentials } from '../../src/adapters/social/social-connector.ts';
import type { Schemas } from '../../src/api/schemas.ts';
import type { FacebookServer } from '../fakes/facebook-server.ts';
import type { InstagramServer } from '../fakes/instagram-server.ts';
import type { LinkedInServer } from '../fakes/linkedin-server.ts';
import type { PinterestServer } from '../fakes/pinterest-server.ts';
import type { ThreadsServer } from '../fakes/threads-server.ts';
import type { TikTokServer } from '../fakes/tiktok-server.ts';
import type { YouTubeServer } from '../fakes/youtube-server.ts';
import type { ApiClient } from './http.ts';

// What tests of OAuth connections share, whatever the platform: the environment that points the service at a fake,
// a browser's round trip through the flow, and connections written straight to the database.

/** The environment that points the service at the fake LinkedIn, with the fake's app as the operator's. */
export function linkedInEnv(linkedin: LinkedInServer, { organizationApp = false } = {}): Record<string, string> {
  return {
    LINKEDIN_API_URL: linkedin.url,
    LINKEDIN_AUTHORIZE_URL: `${linkedin.url}/oauth/v2`,
    LINKEDIN_CLIENT_ID: linkedin.client.clientId,
    LINKEDIN_CLIENT_SECRET: linkedin.client.clientSecret,
    ...(organizationApp
      ? { LINKEDIN_ORGANIZATION_CLIENT_ID: linkedin.organizationClient.clientId, LINKEDIN_ORGANIZATION_CLIENT_SECRET: linkedin.organizationClient.clientSecret }
      : {}),
    SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true',
  };
}

/** The environment that points the service at the fake Threads, with the fake's app as the operator's. */
export function threadsEnv(threads: ThreadsServer): Record<string, string> {
  return {
    THREADS_API_URL: threads.url,
    THREADS_AUTHORIZE_URL: threads.authorizeUrl,
    THREADS_CLIENT_ID: threads.app.clientId,
    THREADS_CLIENT_SECRET: threads.app.clientSecret,
    SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true',
  };
}

/** The environment that points the service at the fake Pinterest, with the fake's app as the operator's. */
export function pinterestEnv(pinterest: PinterestServer): Record<string, string> {
  return {
    PINTEREST_API_URL: pinterest.url,
    PINTEREST_AUTHORIZE_URL: pinterest.authorizeUrl,
    PINTEREST_CLIENT_ID: pinterest.client.clientId,
    PINTEREST_CLIENT_SECRET: pinterest.client.clientSecret,
    SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true',
  };
}

/** The environment that points the service at the fake YouTube (and Google's OAuth), with the fake's client as the operator's. */
export function youTubeEnv(youtube: YouTubeServer): Record<string, string> {
  return {
    YOUTUBE_API_URL: youtube.url,
    YOUTUBE_AUTHORIZE_URL: youtube.authorizeUrl,
    YOUTUBE_TOKEN_URL: youtube.tokenUrl,
    YOUTUBE_CLIENT_ID: youtube.client.clientId,
    YOUTUBE_CLIENT_SECRET: youtube.client.clientSecret,
    SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true',
  };
}

/** The environment that points the service at the fake Instagram, with the fake's app as the operator's. */
export function instagramEnv(instagram: InstagramServer): Record<string, string> {
  return {
    INSTAGRAM_API_URL: instagram.url,
    INSTAGRAM_AUTHORIZE_URL: instagram.authorizeUrl,
    INSTAGRAM_TOKEN_URL: instagram.tokenUrl,
    INSTAGRAM_CLIENT_ID: instagram.app.clientId,
    INSTAGRAM_CLIENT_SECRET: instagram.app.clientSecret,
    SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true',
  };
}

/** The environment that points the service at the fake TikTok, with the fake's app as the operator's. */
export function tikTokEnv(tiktok: TikTokServer): Record<string, string> {
  return {
    TIKTOK_API_URL: tiktok.url,
    TIKTOK_AUTHORIZE_URL: tiktok.authorizeUrl,
    TIKTOK_CLIENT_KEY: tiktok.client.clientKey,
    TIKTOK_CLIENT_SECRET: tiktok.client.clientSecret,
    SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true',
  };
}

/** The environment that points the service at the fake Facebook, with the fake's Meta app as the operator's. */
export function facebookEnv(facebook: FacebookServer): Record<string, string> {
  return {
    FACEBOOK_API_URL: facebook.url,
    FACEBOOK_VIDEO_API_URL: facebook.url,
    FACEBOOK_AUTHORIZE_URL: facebook.authorizeUrl,
    FACEBOOK_CLIENT_ID: facebook.app.clientId,
    FACEBOOK_CLIENT_SECRET: facebook.app.clientSecret,
    SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true',
  };
}

/**
 * The cookie our consent page's Continue leaves in the browser, by our origin: the callback completes an authorization
 * only in the browser that confirmed it, so this file's "browser" sends it back there, as a real one would.
 */
const consentCookies = new Map<string, string>();

/** What a browser does: follow one redirect by hand, to see where it points (with our consent cookie, if it has one). */
export async function visit(url: string): Promise<{ status: number; location: URL | null; text: string }> {
  const cookie = consentCookies.get(new URL(url).origin);
  const response = await fetch(url, { redirect: 'manual', ...(cookie && { headers: { cookie } }) });
  const location = response.headers.get('location');
  return { status: response.status, location: location ? new URL(location, url) : null, text: await response.text() };
}

/**
 * What a browser does on our consent page (the `authorizationUrl`): load it, keep its cookie, press Continue (the
 * form's POST with its token); the platform's authorization URL it is sent on to.
 */
export async function continueOnConsentPage(authorizationUrl: string): Promise<URL> {
  const page = await fetch(authorizationUrl, { redirect: 'manual' });
  const html = await page.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  const cookie = page.headers.get('set-cookie')?.split(';')[0];
  if (page.status !== 200 || !csrf || !cookie) throw new Error(`Our consent page answered ${page.status}: ${html}`);
  const continued = await fetch(authorizationUrl, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ csrf }).toString(),
  });
  const location = continued.headers.get('location');
  if (continued.status !== 303 || !location) throw new Error(`Continue on our consent page answered ${continued.status}: ${await continued.text()}`);
  const browser = continued.headers.getSetCookie().find((each) => each.startsWith('oauth_consent_browser='));
  if (browser) consentCookies.set(new URL(authorizationUrl).origin, browser.split(';')[0]!);
  return new URL(location, authorizationUrl);
}

/**
 * The whole round trip: our authorization, our consent page, the platform's consent page, our callback; where the
 * person ends up (the client's `redirectUri`, with `connectionId` or `error`).
 */
export async function connectThroughOAuth(client: ApiClient, request: Schemas['CreateOAuthAuthorizationRequest']): Promise<URL> {
  const created = await client.post<Schemas['OAuthAuthorization']>('/social-connections/authorizations', request);
  if (created.status !== 201) throw new Error(`The authorization was not made: ${created.status} ${JSON.stringify(created.body)}`);
  const consent = await visit((await continueOnConsentPage(created.body.authorizationUrl)).toString());
  if (consent.status !== 302 || !consent.location) throw new Error(`The consent page answered ${consent.status}: ${consent.text}`);
  const callback = await visit(consent.location.toString());
  if (callback.status !== 303 || !callback.location) throw new Error(`Our callback answered ${callback.status}: ${callback.text}`);
  return callback.location;
}

/** An OAuth connection written straight to the database with `credentials` (its expiry theirs). */
export async function createOAuthConnectionFixture(
  orm: Database,
  config: Config,
  input: { workspaceId: string; credentials: OAuthCredentials; serverUrl: string; accountName: string; accountId: string },
): Promise<SocialConnection> {
  const em = orm.em.fork();
  const connection = em.create(SocialConnection, {
    workspaceId: input.workspaceId,
    platform: input.credentials.platform,
    serverUrl: input.serverUrl,
    accountName: input.accountName,
    accountId: input.accountId,
    credentialsSealed: createSecretBox(config.secrets.encryptionKeys, 'secrets').seal(JSON.stringify(input.credentials)),
    sessionSealed: null,
    postLanguage: null,
    expiresAt: new Date(input.credentials.expiresAt),
  });
  await em.flush();
  return connection;
}

/** The connection's credentials as stored. */
export async function storedCredentials<C extends SocialCredentials = OAuthCredentials>(orm: Database, config: Config, connectionId: string): Promise<C> {
  const row = await orm.em.fork().findOneOrFail(SocialConnection, connectionId);
  return JSON.parse(createSecretBox(config.secrets.encryptionKeys, 'secrets').open(row.credentialsSealed)) as C;
}
