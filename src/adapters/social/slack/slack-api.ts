import { answerFailure } from '../answer-failure.ts';
import { redactSecrets, redactedWords } from '../../../common/redaction/redact-secrets.ts';
import { createPlatformHttp, type Answer, type PlatformHttp, type PlatformHttpOptions, type RequestBody } from '../platform-http.ts';
import { rateLimitWaitMs } from '../rate-limit-wait.ts';
import { SocialOutcomeUnknownError, SocialRejectedError, SocialUnavailableError } from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';

// Slack's Web API (https://docs.slack.dev/apis/web-api/): every method is `POST <api>/<method>` with the bot token
// as a bearer token, and answers HTTP 200 with `{ ok: true, … }` or `{ ok: false, error }`, its error a code such as
// `channel_not_found` (each method's page lists its own). A rate limit is HTTP 429 with Retry-After in seconds
// (https://docs.slack.dev/apis/web-api/rate-limits).

export type SlackApiOptions = PlatformHttpOptions & {
  /** The Web API's base, e.g. https://slack.com/api (SLACK_API_URL). */
  apiUrl: string;
};

/** Slack refused because of the channel (it does not exist, the app is not in it, it is archived), not the token. */
export class SlackChannelRefusedError extends SocialRejectedError {
  constructor(reason: string) {
    super(reason, 'destination');
  }
}

// The token is wrong, revoked, or lacks a scope: only the customer can fix it, in their Slack app.
const tokenErrors = new Set([
  'not_authed',
  'invalid_auth',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'no_permission',
  'missing_scope',
  'not_allowed_token_type',
  'ekm_access_denied',
  'team_access_not_granted',
  'access_denied',
]);
const channelErrors = new Set(['channel_not_found', 'not_in_channel', 'is_archived', 'restricted_action', 'restricted_action_read_only_channel']);
// Slack's own trouble. Its pages say of `internal_error` and `fatal_error` that some of the operation may have
// succeeded before the error, so after a request that posts they leave the outcome unknown.
const partlyDoneErrors = new Set(['internal_error', 'fatal_error']);
const transientErrors = new Set(['service_unavailable', 'request_timeout', 'team_added_to_org']);

type Call = {
  /** Sent as JSON (the methods that take structured arguments); otherwise as a form. */
  json?: object;
  form?: Record<string, string>;
  /** The method posts a message: an unanswered request leaves the outcome unknown. */
  creates?: boolean;
};

export type SlackApi = {
  /** Calls `method` with the bot token; its `{ ok: true }` answer, or the error Slack's answer means. */
  call(token: string, method: string, call: Call): Promise<Answer>;
  /** Sends a file's bytes to the upload URL files.getUploadURLExternal gave (which takes no token: the URL is the grant). */
  /** Sends a file's bytes (a video streamed from storage) to the `upload_url` files.getUploadURLExternal gave. */
  upload(uploadUrl: string, body: RequestBody, contentType: string): Promise<void>;
  http: PlatformHttp;
};

function errorCodeOf(answer: Answer): string | undefined {
  const { error } = answer.body;
  return typeof error === 'string' && error ? redactedWords(error, [], 200) : undefined;
}

/** Slack's words: its error code, and for a missing scope the scope it needed. */
function errorTextOf(answer: Answer, token: string): string {
  const code = errorCodeOf(answer);
  const needed = typeof answer.body.needed === 'string' ? answer.body.needed.slice(0, 200) : undefined;
  return redactSecrets([code, needed ? `needs the scope ${needed}` : undefined].filter(Boolean).join(': '), [token]);
}

/** The error of an answer that is not `{ ok: true }`; `what` names the request in the message. */
function slackFailureOf(answer: Answer, what: string, token: string, creates = false): Error {
  const { status } = answer;
  const code = errorCodeOf(answer);
  const text = errorTextOf(answer, token);
  const detail = text ? `${text} (${status})` : `(${status})`;
  // The Web API answers 200 with `ok: false` and an error code; a rate limit may come either way.
  if (status !== 200 || code === 'ratelimited') {
    return answerFailure(
      { status: code === 'ratelimited' ? 429 : status, headers: answer.headers },
      {
        platform: platformNames.slack,
        what,
        detail,
        waitMs: () => rateLimitWaitMs(answer.headers, () => Number.NaN),
        redirectFix: "SLACK_API_URL must be the Web API's own address",
      },
    );
  }
  if (!code) return new SocialUnavailableError(`Slack answered ${what} (${status}) without ok`);
  if (tokenErrors.has(code)) return new SocialRejectedError(`Slack rejected the bot token: ${text}`);
  if (channelErrors.has(code)) return new SlackChannelRefusedError(`Slack refused ${what}: ${text}`);
  if (partlyDoneErrors.has(code))
    return creates ? new SocialOutcomeUnknownError(`Slack failed ${what} part way: ${text}`) : new SocialUnavailableError(`Slack failed ${what}: ${text}`);
  if (transientErrors.has(code)) return new SocialUnavailableError(`Slack is unavailable: ${text}`);
  return new SocialRejectedError(`Slack refused ${what}: ${text}`);
}

/** Slack's Web API, on the public internet only unless allowed. */
export function createSlackApi(options: SlackApiOptions): SlackApi {
  const http = createPlatformHttp(platformNames.slack, options);

  return {
    http,

    async call(token, method, { json, form, creates }) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
      // Slack asks for the charset with JSON, and warns (`missing_charset`) without it.
      if (json) headers['content-type'] = 'application/json; charset=utf-8';
      else headers['content-type'] = 'application/x-www-form-urlencoded';
      const answer = await http.request({
        method: 'POST',
        url: new URL(`${options.apiUrl}/${method}`),
        headers,
        ...(json ? { json } : { body: Buffer.from(new URLSearchParams(form ?? {}).toString()) }),
        creates,
      });
      if (answer.status === 200 && answer.body.ok === true) return answer;
      throw slackFailureOf(answer, `the ${method} request`, token, creates);
    },

    async upload(uploadUrl, body, contentType) {
      if (!URL.canParse(uploadUrl) || new URL(uploadUrl).protocol !== 'https:') {
        throw new SocialUnavailableError('Slack answered files.getUploadURLExternal with an upload_url that is not an https URL');
      }
      const answer = await http.request({ method: 'POST', url: new URL(uploadUrl), headers: { 'content-type': contentType }, body });
      // The upload URL answers 200 with plain text ("OK - <bytes>"), not Slack's JSON.
      if (answer.status !== 200) throw slackFailureOf(answer, 'the file upload', '');
    },
  };
}
