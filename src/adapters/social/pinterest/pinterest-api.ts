import type { IncomingHttpHeaders } from 'node:http';
import { redactedWords } from '../../../common/redaction/redact-secrets.ts';
import { answerFailure } from '../answer-failure.ts';
import { type Answer, type PlatformHttp } from '../platform-http.ts';
import { rateLimitWaitMs } from '../rate-limit-wait.ts';
import { SocialUnavailableError, type VerifiedAccount } from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';

// How Pinterest's API v5 answers, read once for the connector and the OAuth side. Errors are `{code, message}`
// (the description's `Error` schema, https://developers.pinterest.com/docs/api/v5/); a 429 carries the window's
// reset in `x-ratelimit-reset` (https://developers.pinterest.com/docs/reference/rate-limits/), which Pinterest gives
// as the seconds left in the window.

/** What one call of the connector is given. */
export type PinterestCall = { http: PlatformHttp; apiUrl: string; token: string };

export const pinterestApi = (apiUrl: string, path: string) => new URL(`/v5${path}`, apiUrl);

export const pinterestHeaders = (token: string) => ({ authorization: `Bearer ${token}`, accept: 'application/json' });

// A reset under this is a number of seconds; above it, an epoch second (read either way, as pages disagree).
const epochSecondsFrom = 1_000_000_000;

function resetAtOf(headers: IncomingHttpHeaders): number {
  const reset = headers['x-ratelimit-reset'];
  if (typeof reset !== 'string' || !/^\d+$/.test(reset.trim())) return Number.NaN;
  const seconds = Number(reset);
  return seconds >= epochSecondsFrom ? seconds * 1000 : Date.now() + seconds * 1000;
}

/** Pinterest's own words from an error body, without any secret should it echo one. */
export function pinterestErrorText(answer: Answer, secrets: string[]): string {
  const { code, message, error, error_description: description } = answer.body;
  const parts = [typeof code === 'number' ? `code ${code}` : undefined, message, error, description];
  const text = parts.filter((part): part is string => typeof part === 'string' && part.length > 0).join(': ');
  return redactedWords(text, secrets, 500);
}

/** The error of a failed answer: 401 a token Pinterest no longer takes, other 4xx refusals, 429 a wait, 5xx outages. */
export function pinterestFailureOf(answer: Answer, what: string, secrets: string[]): Error {
  const text = pinterestErrorText(answer, secrets);
  const detail = `(${answer.status})${text ? `: ${text}` : ''}`;
  return answerFailure(answer, {
    platform: platformNames.pinterest,
    what,
    detail,
    waitMs: () => rateLimitWaitMs(answer.headers, resetAtOf),
    redirectFix: "the configured Pinterest API URL must be the API's own address",
    refusal: answer.status === 401 ? `Pinterest rejected the access token ${detail}; connect the account again` : undefined,
  });
}

/** Who an access token belongs to (https://developers.pinterest.com/docs/api/v5/user_account-get). */
export async function pinterestAccountOf({ http, apiUrl, token }: PinterestCall): Promise<VerifiedAccount> {
  const answer = await http.request({ method: 'GET', url: pinterestApi(apiUrl, '/user_account'), headers: pinterestHeaders(token) });
  if (answer.status !== 200) throw pinterestFailureOf(answer, 'the account', [token]);
  return { accountName: http.textField(answer, 'username', 'the account'), accountId: http.textField(answer, 'id', 'the account') };
}

/** A board the account may pin to. */
export type PinterestBoard = { id: string; name: string };

// Pinterest's most per page; an account with more boards than a few pages is rare, and the list is bounded anyway.
const boardsPageSize = 250;
const maxBoardPages = 20;

/** The account's boards (https://developers.pinterest.com/docs/api/v5/boards-list), every page of them. */
export async function pinterestBoardsOf({ http, apiUrl, token }: PinterestCall): Promise<PinterestBoard[]> {
  const boards: PinterestBoard[] = [];
  let bookmark: string | undefined;
  for (let page = 0; page < maxBoardPages; page += 1) {
    const url = pinterestApi(apiUrl, '/boards');
    url.search = new URLSearchParams({ page_size: String(boardsPageSize), ...(bookmark ? { bookmark } : {}) }).toString();
    const answer = await http.request({ method: 'GET', url, headers: pinterestHeaders(token) });
    if (answer.status !== 200) throw pinterestFailureOf(answer, 'the list of boards', [token]);
    if (!Array.isArray(answer.body.items)) throw new SocialUnavailableError(`Pinterest answered the list of boards (${answer.status}) without items`);
    for (const item of answer.body.items as Array<Record<string, unknown>>) {
      if (typeof item.id === 'string' && typeof item.name === 'string') boards.push({ id: item.id, name: item.name });
    }
    bookmark = typeof answer.body.bookmark === 'string' && answer.body.bookmark ? answer.body.bookmark : undefined;
    if (!bookmark) break;
  }
  return boards;
}
