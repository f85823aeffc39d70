import { answerFailure } from '../answer-failure.ts';
import { createPlatformHttp, redactSecrets, type Answer, type PlatformHttpOptions } from '../platform-http.ts';
import { rateLimitWaitMs } from '../rate-limit-wait.ts';
import { type VerifiedAccount } from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';

// How our Threads pieces (the OAuth platform and the connector) talk to Meta's Threads Graph API: parameters as
// the documentation sends them (the query string for GET, a form body for POST, access_token among them), and its
// errors read from Graph API's error body (https://developers.facebook.com/docs/graph-api/guides/error-handling):
// `{error: {message, type, code, error_subcode, fbtrace_id}}`, or the flat `{error_type, code, error_message}` its
// authorization endpoints answer.

export const threadsDefaults = { apiUrl: 'https://graph.threads.net', authorizeUrl: 'https://threads.net/oauth/authorize' } as const;

export type ThreadsGraphOptions = PlatformHttpOptions & {
  /** The Threads Graph API's base URL (THREADS_API_URL); Meta's by default. */
  apiUrl?: string | undefined;
};

export type GraphError = { message: string; code: number | undefined; subcode: number | undefined; transient: boolean };

export type ThreadsGraph = {
  /** `params` go in the query string. */
  get(path: string, params: Record<string, string>): Promise<Answer>;
  /** `params` go in a form body; `creates`: the request makes a post (see PlatformRequest.creates). */
  post(path: string, params: Record<string, string>, options?: { creates?: boolean }): Promise<Answer>;
  /** The answer's non-empty string field, or SocialUnavailableError. */
  textField(answer: Answer, field: string, what: string): string;
  /** The error a failed answer stands for; `what` names the request ("the post"), `secrets` are blanked. */
  failureOf(answer: Answer, what: string, secrets: string[]): Error;
};

// Graph API's throttling codes: 4 (app), 17 (user), 32 (page), 613 (a call's own rate limit).
const rateLimitCodes = new Set([4, 17, 32, 613]);
// Graph API's temporary failures: 1 (unknown, "possibly due to downtime"), 2 (service).
const outageCodes = new Set([1, 2]);
const invalidToken = 190;

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

/** The Graph error in an answer's body, nested or flat; undefined when the body holds none. */
export function graphErrorOf(body: Record<string, unknown>): GraphError | undefined {
  const nested = body.error;
  if (typeof nested === 'object' && nested !== null) {
    const error = nested as Record<string, unknown>;
    const userMessage = typeof error.error_user_msg === 'string' ? error.error_user_msg : '';
    const message = [error.message, userMessage].filter((part) => typeof part === 'string' && part).join(' — ');
    return { message, code: numberOf(error.code), subcode: numberOf(error.error_subcode), transient: error.is_transient === true };
  }
  if (typeof body.error_message === 'string' || typeof body.error_type === 'string') {
    const message = typeof body.error_message === 'string' ? body.error_message : String(body.error_type);
    return { message, code: numberOf(body.code), subcode: undefined, transient: false };
  }
  return undefined;
}

/** Talks to the Threads Graph API at `options.apiUrl`, public addresses only unless allowed. */
export function createThreadsGraph(options: ThreadsGraphOptions): ThreadsGraph {
  const http = createPlatformHttp(platformNames.threads, options);
  const base = options.apiUrl ?? threadsDefaults.apiUrl;

  return {
    get(path, params) {
      const url = new URL(path, base);
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      return http.request({ method: 'GET', url, headers: { accept: 'application/json' } });
    },

    post(path, params, { creates } = {}) {
      return http.request({
        method: 'POST',
        creates,
        url: new URL(path, base),
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: Buffer.from(new URLSearchParams(params).toString()),
      });
    },

    textField: (answer, field, what) => http.textField(answer, field, what),

    failureOf(answer, what, secrets) {
      const { status } = answer;
      const error = graphErrorOf(answer.body);
      const code = error?.code;
      const text = redactSecrets(error?.message ?? '', secrets);
      const detail = `(${status}${code === undefined ? '' : `, code ${code}`})${text ? `: ${text}` : ''}`;
      // Graph API error codes say more than the status: a rate limit or an outage may come as a 400.
      const rateLimited = status === 429 || (code !== undefined && rateLimitCodes.has(code));
      const outage = (code !== undefined && outageCodes.has(code)) || error?.transient === true;
      const tokenRefused = code === invalidToken || status === 401;
      // 10 and 200-299: a permission the person did not grant (or took back); connecting again asks for it.
      const permissionRefused = code === 10 || (code !== undefined && code >= 200 && code <= 299);
      return answerFailure(
        { status: rateLimited ? 429 : tokenRefused || permissionRefused ? 400 : outage && status < 500 ? 503 : status, headers: answer.headers },
        {
          platform: platformNames.threads,
          what,
          detail,
          // Threads documents no reset header; Retry-After is honoured should one come, else a minute.
          waitMs: () => rateLimitWaitMs(answer.headers, () => Number.NaN),
          redirectFix: "THREADS_API_URL must be the API's own address",
          refusal: tokenRefused ? `Threads rejected the access token ${detail}` : permissionRefused ? `Threads refused the permission ${detail}` : undefined,
        },
      );
    },
  };
}

/**
 * Who a Threads access token belongs to (https://developers.facebook.com/docs/threads/threads-profiles): `@username`
 * and the Threads user id, the `{user-id}` of the publishing endpoints.
 */
export async function threadsAccountOf(graph: ThreadsGraph, accessToken: string): Promise<VerifiedAccount> {
  const answer = await graph.get('/v1.0/me', { fields: 'id,username', access_token: accessToken });
  if (answer.status !== 200) throw graph.failureOf(answer, 'the request', [accessToken]);
  return { accountName: `@${graph.textField(answer, 'username', 'the profile')}`, accountId: graph.textField(answer, 'id', 'the profile') };
}
