import type { IncomingHttpHeaders } from 'node:http';
import { redactedWords } from '../../../common/redaction/redact-secrets.ts';
import { answerFailure } from '../answer-failure.ts';
import { untilMidnightMs } from '../quota-day.ts';
import { type Answer, type PlatformHttp } from '../platform-http.ts';
import { rateLimitWaitMs } from '../rate-limit-wait.ts';
import { SocialRateLimitedError, SocialRejectedError, type VerifiedAccount } from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';

// How the YouTube Data API answers (https://developers.google.com/youtube/v3/docs/errors): Google's error body
// `{"error": {"code", "message", "errors": [{"reason", "domain", "message"}]}}`. The daily quota
// (https://developers.google.com/youtube/v3/determine_quota_cost) and a channel's daily upload cap are not refusals
// but waits until the day's reset, at midnight Pacific time; the per-user rate limits are waits too.

/** What one call is given. */
export type YouTubeCall = { http: PlatformHttp; apiUrl: string; token: string };

export const youTubeHeaders = (token: string) => ({ authorization: `Bearer ${token}`, accept: 'application/json' });

// Reasons that ask to wait: the project's daily quota or the channel's uploads for the day, and the per-user rate.
const dailyLimits = new Set(['quotaExceeded', 'dailyLimitExceeded', 'uploadLimitExceeded']);
const rateLimits = new Set(['rateLimitExceeded', 'userRateLimitExceeded']);

/** The time zone of YouTube's quota day, which begins again at midnight in Los Angeles. */
export const youTubeQuotaTimeZone = 'America/Los_Angeles';

/** How long until YouTube's quota day begins again. */
export const untilPacificMidnightMs = (now = new Date()): number => untilMidnightMs(youTubeQuotaTimeZone, now);

function reasonsOf(answer: Answer): string[] {
  const errors = (answer.body.error as { errors?: Array<{ reason?: unknown }> } | undefined)?.errors;
  return Array.isArray(errors) ? errors.map((entry) => entry.reason).filter((reason): reason is string => typeof reason === 'string') : [];
}

/** Google's own words from an error body (an API error, or OAuth's `error` and `error_description`), secrets blanked. */
export function youTubeErrorText(answer: Answer, secrets: string[]): string {
  const { error, error_description: description } = answer.body;
  const apiError = typeof error === 'object' && error !== null ? (error as { message?: unknown }) : undefined;
  const parts = [apiError ? reasonsOf(answer).join(', ') : error, apiError?.message ?? description];
  const text = parts.filter((part): part is string => typeof part === 'string' && part.length > 0).join(': ');
  return redactedWords(text, secrets, 500);
}

/** The error of a failed answer: the day's quota and rate limits are waits, 401 a token Google no longer takes. */
export function youTubeFailureOf(answer: Answer, what: string, secrets: string[]): Error {
  const text = youTubeErrorText(answer, secrets);
  const detail = `(${answer.status})${text ? `: ${text}` : ''}`;
  const reasons = reasonsOf(answer);
  if (reasons.some((reason) => dailyLimits.has(reason))) {
    return new SocialRateLimitedError(`YouTube's daily limit is reached ${detail}; it resets at midnight Pacific time`, untilPacificMidnightMs());
  }
  const limited = reasons.some((reason) => rateLimits.has(reason));
  return answerFailure(limited ? { ...answer, status: 429 } : answer, {
    platform: platformNames.youtube,
    what,
    detail,
    waitMs: () => rateLimitWaitMs(answer.headers, (_headers: IncomingHttpHeaders) => Number.NaN),
    redirectFix: "the configured YouTube API URL must be the API's own address",
    refusal: answer.status === 401 ? `YouTube rejected the access token ${detail}; connect the account again` : undefined,
  });
}

/**
 * The channel the token uploads to (https://developers.google.com/youtube/v3/docs/channels/list, `mine=true`): its
 * handle or title, and its id. A Google account without a channel cannot upload, so it is refused.
 */
export async function youTubeChannelOf({ http, apiUrl, token }: YouTubeCall): Promise<VerifiedAccount> {
  const url = new URL('/youtube/v3/channels', apiUrl);
  url.search = new URLSearchParams({ part: 'id,snippet', mine: 'true' }).toString();
  const answer = await http.request({ method: 'GET', url, headers: youTubeHeaders(token) });
  if (answer.status !== 200) throw youTubeFailureOf(answer, 'the channel', [token]);
  const [channel] = Array.isArray(answer.body.items) ? (answer.body.items as Array<{ id?: unknown; snippet?: { title?: unknown; customUrl?: unknown } }>) : [];
  if (!channel || typeof channel.id !== 'string') {
    throw new SocialRejectedError('The Google account has no YouTube channel to upload to; create one on YouTube, then connect again');
  }
  const { title, customUrl } = channel.snippet ?? {};
  const name = typeof customUrl === 'string' && customUrl ? customUrl : typeof title === 'string' && title ? title : channel.id;
  return { accountName: name, accountId: channel.id };
}
