import { createMetaGraph, type MetaGraph } from '../meta/meta-graph.ts';
import type { PlatformHttpOptions } from '../platform-http.ts';
import { SocialRejectedError, type VerifiedAccount } from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';

// The Instagram API with Instagram Login (https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login),
// at graph.instagram.com, spoken as every Meta Graph API is (meta-graph.ts).

export const instagramDefaults = {
  apiUrl: 'https://graph.instagram.com',
  authorizeUrl: 'https://www.instagram.com/oauth/authorize',
  tokenUrl: 'https://api.instagram.com/oauth/access_token',
} as const;

/** The Graph API version our requests name. */
export const instagramVersion = 'v24.0';

export type InstagramGraphOptions = PlatformHttpOptions & {
  /** The Instagram Graph API's base URL (INSTAGRAM_API_URL); Meta's by default. */
  apiUrl?: string | undefined;
};

/** Talks to the Instagram Graph API at `options.apiUrl`, public addresses only unless allowed. */
export function createInstagramGraph(options: InstagramGraphOptions): MetaGraph {
  return createMetaGraph(
    { name: platformNames.instagram, apiUrlSetting: 'INSTAGRAM_API_URL' },
    { ...options, apiUrl: options.apiUrl ?? instagramDefaults.apiUrl },
  );
}

// Instagram Login is for professional accounts: a business or a creator account
// (https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/overview).
const professional = new Set(['BUSINESS', 'MEDIA_CREATOR']);

/**
 * Who an Instagram access token belongs to: `@username` and the professional account's id, the `{ig-user-id}` of
 * the publishing endpoints (https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/get-started).
 */
export async function instagramAccountOf(graph: MetaGraph, accessToken: string): Promise<VerifiedAccount> {
  const answer = await graph.get(`/${instagramVersion}/me`, { fields: 'user_id,username,account_type', access_token: accessToken });
  if (answer.status !== 200) throw graph.failureOf(answer, 'the request', [accessToken]);
  const username = graph.textField(answer, 'username', 'the profile');
  const type = answer.body.account_type;
  if (typeof type === 'string' && !professional.has(type)) {
    throw new SocialRejectedError(`@${username} is a personal Instagram account; Instagram lets apps publish only for business and creator accounts`);
  }
  const userId = answer.body.user_id;
  const accountId = typeof userId === 'number' ? String(userId) : graph.textField(answer, 'user_id', 'the profile');
  return { accountName: `@${username}`, accountId };
}
