import type { Config } from '../../config.ts';
import type { ImageLinkProblems } from './image-links-public-url.ts';
import type { OAuthClient, OAuthPlatform, OAuthTokens } from './oauth-platform.ts';
import type { OAuthTokenFields, SocialConnector, SocialCredentials, SocialRejectedError, VerifiedAccount } from './social-connector.ts';
import type { SocialPlatform } from './social-platforms.ts';

// Everything the rest of the service needs to know of one platform, in the platform's own folder and registered
// once in platform-registry.ts. Each fact is a required field (but `serverUrlOf`, where verify says the server), so
// a platform that forgets one does not compile.

export type SocialConfig = Config['social'];

/** The credentials a connection to platform `P` keeps (sealed). */
export type CredentialsOf<P extends SocialPlatform> = Extract<SocialCredentials, { platform: P }>;

/** How a post's image reaches a platform that takes no upload: a link of ours, which it or its readers fetch. */
export type ImageLinkKind = keyof ImageLinkProblems;

/** The request's field each kind of refusal (SocialRejectedError's `about`) is about, for the 400 that names it. */
export type RejectedFields = Partial<Record<SocialRejectedError['about'], string>> & { credentials: string };

/** A platform connected with the account's own credentials, given to POST /social-connections. */
export type CredentialsConnection<P extends SocialPlatform, Input extends { platform: P }> = {
  via: 'credentials';
  /** The credentials the request's body makes (openapi.yaml has checked its shape): trimmed, defaulted, or a 400. */
  credentialsOf: (input: Input) => CredentialsOf<P>;
  rejectedFields: RejectedFields;
  /** The server the connection is shown to talk to, where the connector's verify does not say (Telegram's, Discord's and Slack's do). */
  serverUrlOf?: (credentials: CredentialsOf<P>) => string;
};

/** One of the operator's OAuth 2 apps on a platform: the platform's side of the flow for it, and its client (null: not configured). */
export type OAuthApp = { platform: OAuthPlatform; client: OAuthClient | null };
type ConfiguredApp = OAuthApp & { client: OAuthClient };

/**
 * The operator's OAuth 2 app for a platform, and the API its connections are shown to talk to (`serverUrl`); and,
 * where the platform wants authors other than the person connected through an app of their own (LinkedIn's Community
 * Management API must be the only product on its app), that app (`authorsApp`, null where there is none).
 */
export type OAuthSetup = OAuthApp & { serverUrl: string; authorsApp: ConfiguredApp | null };

/** The app an authorization goes through: the authors' app for an author other than the person, where there is one. */
export function oauthAppFor(setup: OAuthSetup & ConfiguredApp, author: string | undefined): ConfiguredApp & { app?: 'authors' } {
  return author !== undefined && setup.authorsApp ? { ...setup.authorsApp, app: 'authors' } : setup;
}

/**
 * The app an authorization went through (its code is exchanged by that app's client) or a connection's tokens were
 * granted by (which alone may refresh them), as recorded (`app`); null when it is no longer configured.
 */
export function oauthAppOf(setup: OAuthSetup, recorded: { app?: OAuthTokenFields['app'] | null }): OAuthApp | null {
  return recorded.app === 'authors' ? setup.authorsApp : setup;
}

/** A platform connected through OAuth 2 (POST /social-connections/authorizations). */
export type OAuthConnection<P extends SocialPlatform> = {
  via: 'oauth';
  setupOf(config: SocialConfig): OAuthSetup;
  /** The credentials a completed authorization keeps: the tokens and what the platform's own calls need of the account. */
  credentialsOf: (tokens: OAuthTokenFields, account: VerifiedAccount) => CredentialsOf<P>;
  /**
   * Authors other than the person a connection may post as (LinkedIn organisations they administer), or null: `what`
   * they are called, the `scope` the operator's app must grant for them, and the setting (`enabledBy`) that asks for it.
   */
  authors: { what: string; scope: string; enabledBy: string } | null;
};

export type PlatformModule<P extends SocialPlatform, Input extends { platform: P } = { platform: P }> = {
  platform: P;
  /**
   * How a post's image reaches the platform: `null` where it is uploaded; a link of ours where the platform takes no
   * upload (Threads fetches a signed link once while posting; a Nostr note keeps a lasting link for ever).
   */
  imageLink: ImageLinkKind | null;
  connection: CredentialsConnection<P, Input> | OAuthConnection<P>;
  /** The connector, guarded like every request to a customer-given address. */
  createConnector(config: SocialConfig): SocialConnector;
};

/** What every platform's HTTP client is given: the network policy and the per-request timeout. */
export function httpOptionsOf(config: SocialConfig): { allowPrivateNetworks: boolean; timeoutMs: number } {
  return { allowPrivateNetworks: config.allowPrivateNetworks, timeoutMs: config.requestTimeoutMs };
}

/** The OAuth tokens as a connection keeps them (ISO dates). */
export function oauthTokenFieldsOf(tokens: OAuthTokens): OAuthTokenFields {
  return {
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    expiresAt: new Date(tokens.expiresAt).toISOString(),
    refreshTokenExpiresAt: tokens.refreshTokenExpiresAt ? new Date(tokens.refreshTokenExpiresAt).toISOString() : undefined,
  };
}
