import { answerFailure } from '../answer-failure.ts';
import { redactedWords } from '../../../common/redaction/redact-secrets.ts';
import { platformNames } from '../social-platforms.ts';
import type { IncomingHttpHeaders } from 'node:http';
import { type Answer, type PlatformHttp } from '../platform-http.ts';
import { rateLimitWaitMs } from '../rate-limit-wait.ts';
import { SocialUnavailableError, type VerifiedAccount } from '../social-connector.ts';

// How X answers a failed request, read once for the connector and the OAuth side. The API's errors are RFC 7807
// problems (`title`, `detail`, `type`, sometimes `errors[].message`); the token endpoint's are OAuth 2's `error`
// and `error_description`. A 429 carries `x-rate-limit-reset`, the epoch second the window ends
// (https://docs.x.com/x-api/fundamentals/rate-limits).

/** X's x-rate-limit-reset is epoch seconds. */
function xResetAtOf(headers: IncomingHttpHeaders): number {
  const reset = headers['x-rate-limit-reset'];
  return typeof reset === 'string' && /^\d+$/.test(reset.trim()) ? Number(reset) * 1000 : Number.NaN;
}

/** X's own words from an error body, without any secret should it echo one. */
export function xErrorText(answer: Answer, secrets: string[]): string {
  const { title, detail, error, error_description: description, errors } = answer.body;
  const nested = Array.isArray(errors)
    ? errors.map((entry) => (entry as { message?: unknown; detail?: unknown })?.message ?? (entry as { detail?: unknown })?.detail)
    : [];
  const parts = [error, description, detail ?? title, ...nested].filter((part): part is string => typeof part === 'string' && part.length > 0);
  return redactedWords([...new Set(parts)].join(': '), secrets, 500);
}

/**
 * The error of a failed answer: 401 and 403 (a revoked token, a post X refuses) and other 4xx are refusals, 429
 * waits for the reset, 408 and 5xx are outages, a redirect is never followed.
 */
export function xFailureOf(answer: Answer, what: string, secrets: string[]): Error {
  const { status } = answer;
  const text = xErrorText(answer, secrets);
  const detail = `(${status})${text ? `: ${text}` : ''}`;
  return answerFailure(answer, {
    platform: platformNames.x,
    what,
    detail,
    waitMs: () => rateLimitWaitMs(answer.headers, xResetAtOf),
    redirectFix: "the configured X API URL must be the API's own address",
    refusal: status === 401 ? `X rejected the access token ${detail}; connect the account again` : undefined,
  });
}

/** The answer's `data` object (X wraps every result in one), or an outage: a 2xx without it is no answer at all. */
export function xDataOf(answer: Answer, what: string): Record<string, unknown> {
  const data = answer.body.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new SocialUnavailableError(`X answered ${what} (${answer.status}) without data`);
  return data as Record<string, unknown>;
}

/** Who an access token belongs to (https://docs.x.com/x-api/users/get-my-user): `@username` and the user id. */
export async function xAccountOf(http: PlatformHttp, apiUrl: string, accessToken: string): Promise<VerifiedAccount> {
  const answer = await http.request({
    method: 'GET',
    url: new URL('/2/users/me', apiUrl),
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
  });
  if (answer.status !== 200) throw xFailureOf(answer, 'the account', [accessToken]);
  const data = { ...answer, body: xDataOf(answer, 'the account') };
  return { accountName: `@${http.textField(data, 'username', 'the account')}`, accountId: http.textField(data, 'id', 'the account') };
}
