import type { OAuthTokens } from './oauth-platform.ts';
import type { Answer, PlatformHttp } from './platform-http.ts';

// The tokens an OAuth 2 token endpoint granted (RFC 6749 §5.1): `access_token`, `expires_in` seconds (a platform's
// documented lifetime where it leaves it out), `refresh_token` where it issues one, and the refresh token's own
// lifetime under the name the platform gives it (Pinterest's `refresh_token_expires_in`, TikTok's `refresh_expires_in`).

export function tokensOfAnswer(
  answer: Answer,
  http: Pick<PlatformHttp, 'textField'>,
  lifetimes: { defaultSeconds: number; refreshField?: string },
): OAuthTokens {
  const seconds = (field: string) => {
    const value = answer.body[field];
    return typeof value === 'number' && value > 0 ? value : undefined;
  };
  const refreshSeconds = lifetimes.refreshField ? seconds(lifetimes.refreshField) : undefined;
  const refreshToken = answer.body.refresh_token;
  return {
    accessToken: http.textField(answer, 'access_token', 'the token request'),
    refreshToken: typeof refreshToken === 'string' && refreshToken ? refreshToken : undefined,
    expiresAt: Date.now() + (seconds('expires_in') ?? lifetimes.defaultSeconds) * 1000,
    ...(refreshSeconds ? { refreshTokenExpiresAt: Date.now() + refreshSeconds * 1000 } : {}),
  };
}
