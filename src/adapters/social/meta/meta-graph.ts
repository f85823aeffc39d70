import { answerFailure } from '../answer-failure.ts';
import { redactSecrets } from '../../../common/redaction/redact-secrets.ts';
import { createPlatformHttp, type Answer, type PlatformHttpOptions, type PlatformRequest } from '../platform-http.ts';
import { rateLimitWaitMs } from '../rate-limit-wait.ts';

// How our pieces for Meta's platforms (Threads, Instagram, Facebook) talk to their Graph APIs: parameters as the documentation
// sends them (the query string for GET, a form body for POST, access_token among them), and errors read from Graph
// API's error body (https://developers.facebook.com/docs/graph-api/guides/error-handling): `{error: {message, type,
// code, error_subcode, fbtrace_id}}`, or the flat `{error_type, code, error_message}` their authorization endpoints
// answer.

export type MetaGraphOptions = PlatformHttpOptions & {
  /** The Graph API's base URL (its setting, e.g. THREADS_API_URL). */
  apiUrl: string;
};

/** Which of Meta's platforms a graph client talks to: its name and the setting that holds its API's address. */
export type MetaPlatform = { name: string; apiUrlSetting: string };

type GraphError = { message: string; code: number | undefined; subcode: number | undefined; transient: boolean };

export type MetaGraph = {
  /** `params` go in the query string; `path` is the API's, or a whole URL on another of the platform's hosts. */
  get(path: string | URL, params: Record<string, string>): Promise<Answer>;
  /** `params` go in a form body; `creates`: the request makes a post (see PlatformRequest.creates). */
  post(path: string | URL, params: Record<string, string>, options?: { creates?: boolean }): Promise<Answer>;
  /** Any other request (a multipart form, an upload's bytes) to a path of the API. */
  send(path: string, request: Omit<PlatformRequest, 'url'>): Promise<Answer>;
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
function graphErrorOf(body: Record<string, unknown>): GraphError | undefined {
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

/** Whether a failed answer holds this Graph error. */
export function isGraphError(answer: Answer, { code, subcode }: { code: number; subcode?: number }): boolean {
  const error = graphErrorOf(answer.body);
  return error?.code === code && (subcode === undefined || error.subcode === subcode);
}

/** Talks to one of Meta's Graph APIs at `options.apiUrl`, public addresses only unless allowed. */
export function createMetaGraph(platform: MetaPlatform, options: MetaGraphOptions): MetaGraph {
  const http = createPlatformHttp(platform.name, options);

  return {
    get(path, params) {
      const url = new URL(path, options.apiUrl);
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      return http.request({ method: 'GET', url, headers: { accept: 'application/json' } });
    },

    post(path, params, { creates } = {}) {
      return http.request({
        method: 'POST',
        creates,
        url: new URL(path, options.apiUrl),
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: Buffer.from(new URLSearchParams(params).toString()),
      });
    },

    send: (path, request) => http.request({ ...request, url: new URL(path, options.apiUrl) }),

    textField: (answer, field, what) => http.textField(answer, field, what),

    failureOf(answer, what, secrets) {
      const { status } = answer;
      const error = graphErrorOf(answer.body);
      const code = error?.code;
      const text = redactSecrets(error?.message ?? '', secrets);
      const detail = `(${status}${code === undefined ? '' : `, code ${code}`}${error?.subcode === undefined ? '' : `/${error.subcode}`})${text ? `: ${text}` : ''}`;
      // Graph API error codes say more than the status: a rate limit or an outage may come as a 400.
      const rateLimited = status === 429 || (code !== undefined && rateLimitCodes.has(code));
      const outage = (code !== undefined && outageCodes.has(code)) || error?.transient === true;
      const tokenRefused = code === invalidToken || status === 401;
      // 10 and 200-299: a permission the person did not grant (or took back); connecting again asks for it.
      const permissionRefused = code === 10 || (code !== undefined && code >= 200 && code <= 299);
      return answerFailure(
        { status: rateLimited ? 429 : tokenRefused || permissionRefused ? 400 : outage && status < 500 ? 503 : status, headers: answer.headers },
        {
          platform: platform.name,
          what,
          detail,
          // Meta documents no reset header for these codes; Retry-After is honoured should one come, else a minute.
          waitMs: () => rateLimitWaitMs(answer.headers, () => Number.NaN),
          redirectFix: `${platform.apiUrlSetting} must be the API's own address`,
          refusal: tokenRefused
            ? `${platform.name} rejected the access token ${detail}`
            : permissionRefused
              ? `${platform.name} refused the permission ${detail}`
              : undefined,
        },
      );
    },
  };
}
