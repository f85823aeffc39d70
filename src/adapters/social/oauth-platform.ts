import type { VerifiedAccount } from './social-connector.ts';

// The OAuth 2 side of a platform that connects through it (LinkedIn, X, Threads): the authorization URL a person
// is sent to, the code exchange our callback makes, the refresh a connection's keep-alive workflow makes, and who
// the tokens belong to. Each platform implements it against its documented endpoints; the endpoints' base URLs are
// configuration, so the same code runs against the platform and against the tests' fakes.

/** The operator's app registered with the platform (configuration); a platform without one is "not configured". */
export type OAuthClient = { clientId: string; clientSecret: string };

/** What a token endpoint granted. */
export type OAuthTokens = {
  accessToken: string;
  /** Absent when the platform issues none (Threads refreshes its long-lived access token with itself). */
  refreshToken?: string | undefined;
  /** When the access token expires, epoch ms. */
  expiresAt: number;
  /** When the refresh token expires, epoch ms, where the platform says (LinkedIn). */
  refreshTokenExpiresAt?: number | undefined;
};

export type OAuthPlatform = {
  /** The scopes asked for, as the platform names them. */
  readonly scopes: readonly string[];
  /**
   * Where the person is sent to grant access: the platform's authorization endpoint with the client id, our callback
   * as `redirect_uri`, the scopes, `state`, and the PKCE S256 `code_challenge`.
   */
  authorizationUrl(input: { client: OAuthClient; callbackUrl: string; state: string; codeChallenge: string }): string;
  /** Exchanges the code our callback received (with the PKCE verifier) for tokens. */
  exchangeCode(input: { client: OAuthClient; callbackUrl: string; code: string; codeVerifier: string }): Promise<OAuthTokens>;
  /**
   * New tokens for old. Throws SocialRejectedError when the platform refused the grant for good (revoked, expired,
   * `invalid_grant`): the connection needs the person again. Outages and rate limits throw SocialUnavailableError and
   * SocialRateLimitedError, which are retried and never taken as a dead token.
   */
  refresh(input: { client: OAuthClient; tokens: OAuthTokens }): Promise<OAuthTokens>;
  /**
   * Who the access token belongs to; with `author`, the account it posts as instead (a LinkedIn organisation the
   * member may post for), or SocialRejectedError when it may not.
   */
  account(accessToken: string, author?: string): Promise<VerifiedAccount>;
};
