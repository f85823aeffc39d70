import type { IncomingHttpHeaders } from 'node:http';
import { redactedWords } from '../../../common/redaction/redact-secrets.ts';
import { answerFailure } from '../answer-failure.ts';
import { type Answer, type PlatformHttp } from '../platform-http.ts';
import { rateLimitWaitMs } from '../rate-limit-wait.ts';
import { SocialUnavailableError, type VerifiedAccount } from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';

// How TikTok's Open API answers (https://developers.tiktok.com/doc/tiktok-api-v2-error-handling): `{data, error: {code,
// message, log_id}}`, `error.code` being `ok` on success. A 401 is a token TikTok no longer takes or a scope not
// granted; a 429 is its one-minute sliding window, which names no reset: Retry-After if it is given, else a minute.

/** What one call is given. */
export type TikTokCall = { http: PlatformHttp; apiUrl: string; token: string };

export const tikTokApi = (apiUrl: string, path: string) => new URL(`/v2${path}`, apiUrl);

const tikTokHeaders = (token: string) => ({ authorization: `Bearer ${token}`, accept: 'application/json' });

/** The Content Posting API's header (each Direct Post page requires the charset). */
export const tikTokJsonHeaders = (token: string) => ({ ...tikTokHeaders(token), 'content-type': 'application/json; charset=UTF-8' });

/** TikTok's error code, `ok` on success (absent: none given). */
export function tikTokCodeOf(answer: Answer): string | undefined {
  const error = answer.body.error;
  if (typeof error === 'object' && error !== null) {
    const { code } = error as { code?: unknown };
    return typeof code === 'string' ? code : undefined;
  }
  // OAuth's flat `{error, error_description}` (https://developers.tiktok.com/doc/oauth-error-handling).
  return typeof error === 'string' ? error : undefined;
}

/** TikTok's own words from an error body (the API's or OAuth's), secrets blanked. */
export function tikTokErrorText(answer: Answer, secrets: string[]): string {
  const { error, error_description: description } = answer.body;
  const message = typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : description;
  const parts = [tikTokCodeOf(answer), message];
  const text = parts.filter((part): part is string => typeof part === 'string' && part.length > 0).join(': ');
  return redactedWords(text, secrets, 500);
}

/** The `data` of a successful answer, or undefined where TikTok answered an error (whatever the HTTP status). */
export function tikTokDataOf(answer: Answer): Record<string, unknown> | undefined {
  if (answer.status !== 200 || tikTokCodeOf(answer) !== 'ok') return undefined;
  const data = answer.body.data;
  return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

/** The error of a failed answer: 401 a token or scope TikTok refuses, 429 a wait, 5xx outages, other 4xx refusals. */
export function tikTokFailureOf(answer: Answer, what: string, secrets: string[]): Error {
  const text = tikTokErrorText(answer, secrets);
  const detail = `(${answer.status})${text ? `: ${text}` : ''}`;
  const code = tikTokCodeOf(answer);
  // An error with HTTP 200 (creator_info's "200 (intentional)" refusals): a refusal all the same.
  const status = answer.status === 200 && code !== undefined && code !== 'ok' ? 400 : answer.status;
  const refusal =
    code === 'scope_not_authorized'
      ? `TikTok says the account did not grant what posting needs ${detail}; connect the account again and allow posting videos`
      : status === 401
        ? `TikTok rejected the access token ${detail}; connect the account again`
        : undefined;
  return answerFailure(
    { ...answer, status },
    {
      platform: platformNames.tiktok,
      what,
      detail,
      waitMs: () => rateLimitWaitMs(answer.headers, (_headers: IncomingHttpHeaders) => Number.NaN),
      redirectFix: "the configured TikTok API URL must be the API's own address",
      refusal,
    },
  );
}

/** Who an access token belongs to (https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info). */
export async function tikTokAccountOf({ http, apiUrl, token }: TikTokCall): Promise<VerifiedAccount> {
  const url = tikTokApi(apiUrl, '/user/info/');
  url.search = new URLSearchParams({ fields: 'open_id,display_name' }).toString();
  const answer = await http.request({ method: 'GET', url, headers: tikTokHeaders(token) });
  const data = tikTokDataOf(answer);
  if (!data) throw tikTokFailureOf(answer, 'the account', [token]);
  const user = (data.user ?? {}) as Record<string, unknown>;
  if (typeof user.open_id !== 'string' || !user.open_id) throw new SocialUnavailableError('TikTok answered the account without its open_id');
  const name = typeof user.display_name === 'string' && user.display_name ? user.display_name : user.open_id;
  return { accountName: name, accountId: user.open_id };
}
