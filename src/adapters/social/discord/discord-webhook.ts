import { answerFailure } from '../answer-failure.ts';
import { redactSecrets } from '../../../common/redaction/redact-secrets.ts';
import { platformNames } from '../social-platforms.ts';
import type { Answer } from '../platform-http.ts';

import { rateLimitWaitMs } from '../rate-limit-wait.ts';
import { SocialRejectedError } from '../social-connector.ts';

// A Discord webhook as a customer gives it (Server Settings → Integrations → Webhooks → Copy Webhook URL):
// `<DISCORD_API_URL>/webhooks/<id>/<token>`. The token is the webhook's only secret, so the URL is never put in a
// message: refusals name the expected beginning, never what was given.

/** The webhook's id and token, and the versioned URL every call goes to. */
export type DiscordWebhook = { id: string; token: string; url: string };

// Discord's API version: a copied webhook URL carries none, and an unversioned call gets Discord's oldest default,
// which predates attachment descriptions.
const apiVersion = 'v10';
const webhookPath = /^([0-9]{1,20})\/([A-Za-z0-9_.-]{1,200})\/?$/;

/** The webhook a URL names, or a refusal (about the URL: `server`) when it is not a webhook URL of DISCORD_API_URL. */
export function discordWebhookOf(webhookUrl: string, apiUrl: string): DiscordWebhook {
  const prefix = `${apiUrl}/webhooks/`;
  const match = webhookUrl.startsWith(prefix) ? webhookPath.exec(webhookUrl.slice(prefix.length)) : null;
  if (!match) throw new SocialRejectedError(`The webhook URL must be ${prefix}<id>/<token>, as Discord's Copy Webhook URL gives it`, 'server');
  const [, id = '', token = ''] = match;
  return { id, token, url: `${apiUrl}/${apiVersion}/webhooks/${id}/${token}` };
}

// https://discord.com/developers/docs/topics/rate-limits: a 429's body says `retry_after` in seconds (a float); the
// bucket's headers say `X-RateLimit-Reset-After` the same way.
function waitOf(answer: Answer): number {
  const seconds = (value: unknown) => (typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : Number.NaN);
  for (const candidate of [seconds(answer.body.retry_after), seconds(answer.headers['x-ratelimit-reset-after'])]) {
    if (Number.isFinite(candidate) && candidate >= 0) return Math.max(1, Math.ceil(candidate * 1000));
  }
  return rateLimitWaitMs(answer.headers, () => Number.NaN);
}

/**
 * The failure an answer other than 200 means, in Discord's words (https://discord.com/developers/docs/reference#error-messages:
 * `{code, message, errors?}`), with the webhook's token blanked should Discord echo it.
 */
export function discordFailureOf(answer: Answer, what: string, webhook: DiscordWebhook): Error {
  const { status } = answer;
  const { message, code } = answer.body;
  const words = typeof message === 'string' ? redactSecrets(message, [webhook.token]) : '';
  const detail = `(${status})${words ? `: ${words}${typeof code === 'number' && code > 0 ? ` (code ${code})` : ''}` : ''}`;
  return answerFailure(answer, {
    platform: platformNames.discord,
    what,
    detail,
    waitMs: () => waitOf(answer),
    redirectFix: "DISCORD_API_URL must be the API's own address",
    // 401 Invalid Webhook Token, 404 Unknown Webhook: deleted in Discord, or never was.
    refusal: status === 401 || status === 403 || status === 404 ? `Discord refused the webhook ${detail}` : undefined,
  });
}
