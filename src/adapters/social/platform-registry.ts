import { blueskyPlatform } from './bluesky/bluesky-platform.ts';
import { discordPlatform } from './discord/discord-platform.ts';
import { facebookPlatform } from './facebook/facebook-platform.ts';
import { instagramPlatform } from './instagram/instagram-platform.ts';
import { linkedInPlatform } from './linkedin/linkedin-platform.ts';
import { mastodonPlatform } from './mastodon/mastodon-platform.ts';
import { nostrPlatform } from './nostr/nostr-platform.ts';
import { pinterestPlatform } from './pinterest/pinterest-platform.ts';
import type { OAuthTokens } from './oauth-platform.ts';
import {
  oauthTokenFieldsOf,
  type CredentialsConnection,
  type ImageLinkKind,
  type OAuthConnection,
  type OAuthSetup,
  type PlatformModule,
  type RejectedFields,
  type SocialConfig,
} from './platform-module.ts';
import type { OAuthCredentials, SocialConnector, SocialCredentials, VerifiedAccount } from './social-connector.ts';
import { socialPlatforms, type SocialPlatform } from './social-platforms.ts';
import { slackPlatform } from './slack/slack-platform.ts';
import { telegramPlatform } from './telegram/telegram-platform.ts';
import { threadsPlatform } from './threads/threads-platform.ts';
import { tikTokPlatform } from './tiktok/tiktok-platform.ts';
import { xPlatform } from './x/x-platform.ts';
import { youTubePlatform } from './youtube/youtube-platform.ts';

// Every platform, one line each: the connectors, the OAuth flows, the connection inputs, the catalogue's
// `configured` and the image links all come from here. A platform named in socialPlatforms without its module here,
// or a module missing a fact, is a compile error.
const platformModules = {
  mastodon: mastodonPlatform,
  bluesky: blueskyPlatform,
  x: xPlatform,
  linkedin: linkedInPlatform,
  threads: threadsPlatform,
  nostr: nostrPlatform,
  telegram: telegramPlatform,
  discord: discordPlatform,
  slack: slackPlatform,
  pinterest: pinterestPlatform,
  youtube: youTubePlatform,
  instagram: instagramPlatform,
  tiktok: tikTokPlatform,
  facebook: facebookPlatform,
} satisfies { [P in SocialPlatform]: PlatformModule<P, never> };

type Modules = typeof platformModules;

/** The platforms connected with the account's own credentials (POST /social-connections). */
type CredentialsPlatform = { [P in SocialPlatform]: Modules[P]['connection'] extends { via: 'credentials' } ? P : never }[SocialPlatform];

/** The body of POST /social-connections, one shape per platform (openapi.yaml holds the same union). */
export type CreateSocialConnectionInput = {
  [P in CredentialsPlatform]: Modules[P]['connection'] extends CredentialsConnection<P, infer Input> ? Input : never;
}[CredentialsPlatform];

/** The OAuth platforms (POST /social-connections/authorizations). */
type OAuthPlatformName = Exclude<SocialPlatform, CredentialsPlatform>;

/** What every module has whatever its platform: how its images go, whether it connects through OAuth, its connector. */
type AnyModule = Pick<PlatformModule<SocialPlatform>, 'imageLink' | 'createConnector'> & {
  connection: { via: 'credentials' } | OAuthConnection<OAuthPlatformName>;
};

function platformModuleOf(platform: SocialPlatform): AnyModule {
  return platformModules[platform];
}

function byPlatform<T>(value: (platform: SocialPlatform) => T): Record<SocialPlatform, T> {
  return Object.fromEntries(socialPlatforms.map((platform) => [platform, value(platform)])) as Record<SocialPlatform, T>;
}

/** What POST /social-connections makes of a body: the platform's credentials, which field each refusal is about, and the server it talks to where its module knows. */
export type CredentialsConnectionOf = { credentials: SocialCredentials; rejectedFields: RejectedFields; serverUrl: string | undefined };

export function credentialsConnectionOf(input: CreateSocialConnectionInput): CredentialsConnectionOf {
  // The one place a body meets its platform's module: `input.platform` names the module whose input `input` is, a
  // correlation TypeScript cannot follow through a union, hence the cast.
  const connection = platformModules[input.platform].connection as unknown as CredentialsConnection<CredentialsPlatform, CreateSocialConnectionInput>;
  const credentials = connection.credentialsOf(input);
  return { credentials, rejectedFields: connection.rejectedFields, serverUrl: connection.serverUrlOf?.(credentials) };
}

/** The OAuth side of a platform, or undefined when it connects with credentials. */
export function oauthConnectionOf(platform: SocialPlatform): OAuthConnection<OAuthPlatformName> | undefined {
  const { connection } = platformModuleOf(platform);
  return connection.via === 'oauth' ? connection : undefined;
}

/** The credentials a connection made through OAuth keeps: the tokens and what the platform's calls need of the account. */
export function oauthCredentialsOf(platform: SocialPlatform, tokens: OAuthTokens, account: VerifiedAccount): OAuthCredentials {
  const oauth = oauthConnectionOf(platform);
  if (!oauth) throw new Error(`${platform} does not connect through OAuth`);
  return oauth.credentialsOf(oauthTokenFieldsOf(tokens), account);
}

/** The kind of link a platform is given for a post's image, or null when the image is uploaded to it. */
export function imageLinkKindOf(platform: SocialPlatform): ImageLinkKind | null {
  return platformModuleOf(platform).imageLink;
}

/** One connector per platform. */
export function createSocialConnectors(config: SocialConfig): Record<SocialPlatform, SocialConnector> {
  return byPlatform((platform) => platformModuleOf(platform).createConnector(config));
}

export type OAuthPlatforms = Partial<Record<SocialPlatform, OAuthSetup>>;

/** The platforms that connect through OAuth 2, each with the operator's app if one is configured. */
export function createOAuthPlatforms(config: SocialConfig): OAuthPlatforms {
  return Object.fromEntries(
    socialPlatforms.flatMap((platform) => {
      const oauth = oauthConnectionOf(platform);
      return oauth ? [[platform, oauth.setupOf(config)]] : [];
    }),
  );
}

/**
 * Whether the operator's configuration lets this service publish to each platform: one connected with a token, an
 * app password or a webhook needs nothing of the operator; an OAuth platform needs the operator's client id and
 * secret.
 */
export function configuredPlatforms(oauth: OAuthPlatforms): Record<SocialPlatform, boolean> {
  return byPlatform((platform) => (oauthConnectionOf(platform) ? oauth[platform]?.client != null : true));
}
