import { answerFailure } from '../answer-failure.ts';
import { redactSecrets } from '../../../common/redaction/redact-secrets.ts';
import { createPlatformHttp, type Answer, type Multipart, type PlatformHttpOptions } from '../platform-http.ts';
import { rateLimitWaitMs } from '../rate-limit-wait.ts';
import { SocialRejectedError, SocialUnavailableError } from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';

// Telegram's Bot API (https://core.telegram.org/bots/api#making-requests): `POST <api>/bot<token>/<method>`, JSON or
// multipart, answered `{ok: true, result}` or `{ok: false, error_code, description, parameters?}`. The bot's token is
// part of every URL, so no URL is ever put in a message: platform-http's reasons name no URL, and the platform's own
// words are kept only with the token blanked.

export type TelegramApiOptions = PlatformHttpOptions & {
  /** The Bot API's base URL (TELEGRAM_API_URL): https://api.telegram.org. */
  apiUrl: string;
};

/** A multipart body, encoded up front (see mastodon-connector.ts on why not a FormData stream). */

type TelegramCall = {
  method: string;
  json?: object;
  form?: Multipart;
  /** Sends a message: unanswered once sent, its outcome is unknown. */
  creates?: boolean;
  /** What the call is about, in refusals: "the photo", "the chat". */
  what: string;
  /** Whose fault a refusal is: the bot's token (getMe, and any 401) or where the posts go (the chat). */
  about?: 'credentials' | 'destination';
};

export type TelegramApi = {
  /** The method's `result`, or the failure Telegram's answer means. */
  call(token: string, call: TelegramCall): Promise<Record<string, unknown>>;
};

// A bot token as @BotFather issues it: the bot's id, a colon, a secret. Checked before it goes into a URL path.
const tokenShape = /^[0-9]{1,20}:[A-Za-z0-9_-]{1,200}$/;

/** The request URL of `method` for the bot: built only from a token of the right shape. */
function methodUrl(apiUrl: string, token: string, method: string): URL {
  if (!tokenShape.test(token)) throw new SocialRejectedError('The Telegram bot token is not shaped like one (<bot id>:<secret>, as @BotFather gives it)');
  return new URL(`${apiUrl}/bot${token}/${method}`);
}

/** Telegram's `retry_after` (seconds), else a Retry-After header, else a minute. */
function waitOf(answer: Answer): number {
  const retryAfter = (answer.body.parameters as { retry_after?: unknown } | undefined)?.retry_after;
  if (typeof retryAfter === 'number' && Number.isFinite(retryAfter) && retryAfter >= 0) return Math.max(1, Math.ceil(retryAfter * 1000));
  return rateLimitWaitMs(answer.headers, () => Number.NaN);
}

/** The failure an answer other than `{ok: true}` means. */
function telegramFailureOf(answer: Answer, call: Pick<TelegramCall, 'what' | 'about'>, token: string): Error {
  const given = answer.body.error_code;
  const code = typeof given === 'number' ? given : answer.status;
  const description = typeof answer.body.description === 'string' ? redactSecrets(answer.body.description, [token]) : '';
  const detail = `(${code})${description ? `: ${description}` : ''}`;
  // An unknown or revoked token: 401 Unauthorized, or 404 Not Found for a token Telegram cannot even read.
  const tokenRefused = code === 401 || code === 404;
  // A redirect carries no error_code of Telegram's: its status is the code.
  return answerFailure(
    { status: answer.status >= 300 && answer.status < 400 ? answer.status : code, headers: answer.headers },
    {
      platform: platformNames.telegram,
      what: call.what,
      detail,
      waitMs: () => waitOf(answer),
      redirectFix: "TELEGRAM_API_URL must be the Bot API's own address",
      refusal: tokenRefused ? `Telegram rejected the bot token ${detail}` : undefined,
      about: tokenRefused ? 'credentials' : call.about,
    },
  );
}

/** Telegram's Bot API, on the public internet only unless allowed. */
export function createTelegramApi(options: TelegramApiOptions): TelegramApi {
  const http = createPlatformHttp(platformNames.telegram, options);
  return {
    async call(token, call) {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (call.form) headers['content-type'] = call.form.contentType;
      const answer = await http.request({
        method: 'POST',
        url: methodUrl(options.apiUrl, token, call.method),
        headers,
        json: call.json,
        body: call.form?.body,
        creates: call.creates,
      });
      if (answer.status !== 200 || answer.body.ok !== true) throw telegramFailureOf(answer, call, token);
      const result = answer.body.result;
      if (typeof result !== 'object' || result === null) throw new SocialUnavailableError(`Telegram answered ${call.what} (200) without its result`);
      return result as Record<string, unknown>;
    },
  };
}
