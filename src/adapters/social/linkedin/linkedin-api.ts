import { answerFailure } from '../answer-failure.ts';
import { redactSecrets } from '../../../common/redaction/redact-secrets.ts';
import type { IncomingHttpHeaders } from 'node:http';
import { createPlatformHttp, type Answer, type PlatformHttp, type PlatformHttpOptions } from '../platform-http.ts';
import { rateLimitWaitMs } from '../rate-limit-wait.ts';
import { SocialRejectedError } from '../social-connector.ts';

import { platformNames } from '../social-platforms.ts';

// What LinkedIn's connector, OAuth side and author check share: the base URLs (configuration, so the tests' fake
// stands in for LinkedIn), the headers every versioned API call carries, and how LinkedIn's answers become our
// three kinds of failure.

/**
 * The Marketing API version every /rest call names (`LinkedIn-Version`, YYYYMM). LinkedIn supports each version for
 * at least a year and answers 426 once it is sunset; move it forward when their migrations page
 * (https://learn.microsoft.com/en-us/linkedin/marketing/versioning) announces the sunset of this one.
 */
export const linkedInVersion = '202605';

export type LinkedInOptions = PlatformHttpOptions & {
  /** The REST API's base URL (LINKEDIN_API_URL): https://api.linkedin.com. */
  apiUrl: string;
  /** The OAuth endpoints' base URL (LINKEDIN_AUTHORIZE_URL): https://www.linkedin.com/oauth/v2. */
  authorizeUrl: string;
};

type LinkedInCall = {
  method: 'GET' | 'POST';
  /** Path and query under the API's base URL, e.g. `/rest/posts`. */
  path: string;
  query?: Record<string, string>;
  json?: object;
  token: string;
  /** The call makes a post: a lost answer is an unknown outcome (see PlatformRequest.creates). */
  creates?: boolean;
};

/** LinkedIn's API over platform-http: the bearer token, and the version headers on /rest calls. */
export type LinkedInApi = {
  http: PlatformHttp;
  call(call: LinkedInCall): Promise<Answer>;
  /**
   * An upload URL from an answer, where the media's bytes (and, for an image, the bearer token) go next: only to
   * LinkedIn (its upload hosts are under linkedin.com) or to the configured API's own host, never to wherever an
   * answer points.
   */
  uploadUrlOf(value: unknown): URL;
};

export function createLinkedInApi(options: LinkedInOptions): LinkedInApi {
  const http = createPlatformHttp(platformNames.linkedin, options);
  const apiOrigin = new URL(options.apiUrl);
  return {
    http,
    uploadUrlOf(value) {
      const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
      const host = url?.hostname ?? '';
      const ours = host === apiOrigin.hostname || host === 'linkedin.com' || host.endsWith('.linkedin.com');
      if (!url || url.protocol !== 'https:' || !ours) throw new SocialRejectedError('LinkedIn answered an upload with an upload URL off LinkedIn', 'server');
      return url;
    },
    call({ method, path, query, json, token, creates }) {
      const url = new URL(path, apiOrigin);
      for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, value);
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
      // The versioned API (https://learn.microsoft.com/en-us/linkedin/marketing/versioning) needs both; Rest.li 2.0
      // is also what makes a URN in a query parameter be written URL-encoded, as URLSearchParams writes it.
      if (path.startsWith('/rest/')) Object.assign(headers, { 'linkedin-version': linkedInVersion, 'x-restli-protocol-version': '2.0.0' });
      return http.request({ method, url, headers, json, creates });
    },
  };
}

/** The next midnight UTC, when LinkedIn's daily limits reset, in epoch ms. */
function nextMidnightUtc(): number {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
}

/**
 * LinkedIn's limits are per day and reset at midnight UTC, and a 429 carries no reset header
 * (https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits). A daily limit reached says so
 * in its message ("… APPLICATION DAY limit …"), and retrying before midnight only spends attempts; any other 429
 * (LinkedIn's infrastructure protection) passes within minutes.
 */
function resetAtOf(message: string) {
  return (_headers: IncomingHttpHeaders) => (/\bDAY limit\b/i.test(message) ? nextMidnightUtc() : Number.NaN);
}

/**
 * The documented error body of the REST API, `{ status, serviceErrorCode, code?, message }`
 * (https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/error-handling), as "(401 65600): Invalid
 * access token", without the token should it be echoed.
 */
function detailOf(answer: Answer, secrets: string[]): string {
  const { message, serviceErrorCode, code } = answer.body;
  const name = typeof code === 'string' && code ? ` ${code}` : typeof serviceErrorCode === 'number' ? ` ${serviceErrorCode}` : '';
  const text = redactSecrets(typeof message === 'string' ? message : '', secrets);
  return `(${answer.status}${name})${text ? `: ${text}` : ''}`;
}

/** The failure an answer of the REST API is; `what` names what was asked for ("the post", "the image"). */
export function linkedInFailureOf(answer: Answer, what: string, secrets: string[]): Error {
  const { status } = answer;
  const detail = detailOf(answer, secrets);
  const message = typeof answer.body.message === 'string' ? answer.body.message : '';
  return answerFailure(answer, {
    platform: platformNames.linkedin,
    what,
    detail,
    waitMs: () => rateLimitWaitMs(answer.headers, resetAtOf(message)),
    redirectFix: 'check LINKEDIN_API_URL',
    refusal: status === 401 ? `LinkedIn rejected the access token ${detail}` : status === 403 ? `LinkedIn did not allow ${what} ${detail}` : undefined,
  });
}

/**
 * The failure an answer of the token endpoint is: its OAuth error body `{ error, error_description }`
 * (https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow). A 400 or 401 is the
 * grant or the app refused for good; rate limits and outages are never taken for a dead token.
 */
export function linkedInGrantFailureOf(answer: Answer, secrets: string[]): Error {
  const { status } = answer;
  const { error, error_description: description } = answer.body;
  const text = redactSecrets([error, description].filter((part) => typeof part === 'string' && part).join(': '), secrets);
  const detail = `(${status})${text ? `: ${text}` : ''}`;
  return answerFailure(answer, {
    platform: platformNames.linkedin,
    what: 'the token request',
    detail,
    waitMs: () => rateLimitWaitMs(answer.headers, resetAtOf(text)),
    redirectFix: 'check LINKEDIN_AUTHORIZE_URL',
    refusal: `LinkedIn refused the grant ${detail}`,
  });
}
