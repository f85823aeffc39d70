import type { Answer } from './platform-http.ts';
import { SocialRateLimitedError, SocialRejectedError, SocialUnavailableError } from './social-connector.ts';

// What a platform's failed answer means, the same for every platform: 429 waits for the platform's reset, 408 and
// 5xx are outages retried on the ladder, other 4xx are refusals that will be refused again, a redirect is never
// followed (the token must not go wherever a server points), anything else is an answer we cannot read. Each
// platform says how it words the detail, how long a 429 waits, and which refusals it words itself.

export type FailureWording = {
  /** The platform's name, as people call it. */
  platform: string;
  /** What was asked for: "the post", "the image", "the request". */
  what: string;
  /** The status (and the platform's own error code) and its words, secrets blanked: "(401): The access token is invalid". */
  detail: string;
  /** How long to wait after a 429, in ms (read from the platform's reset header or body). */
  waitMs: () => number;
  /** What the operator or client fixes after a redirect: "use the instance's own address", "check LINKEDIN_API_URL". */
  redirectFix: string;
  /** This refusal in the platform's own sentence (a rejected token, a missing permission), instead of "<platform> refused <what>". */
  refusal?: string | undefined;
  /** What a refusal is about (SocialRejectedError's `about`); the credentials unless said. */
  about?: SocialRejectedError['about'] | undefined;
};

/** The error an answer's status means; `answer.status` may be the platform's own code where it has one (Telegram's). */
export function answerFailure(answer: Pick<Answer, 'status' | 'headers'>, wording: FailureWording): Error {
  const { status } = answer;
  const { platform, what, detail } = wording;
  if (status === 429) return new SocialRateLimitedError(`${platform} rate limit reached ${detail}`, wording.waitMs());
  if (status === 408 || status >= 500) return new SocialUnavailableError(`${platform} is unavailable ${detail}`);
  if (status >= 400) return new SocialRejectedError(wording.refusal ?? `${platform} refused ${what} ${detail}`, wording.about);
  if (status >= 300) {
    const location = answer.headers.location;
    const target = location && URL.canParse(location) ? ` to ${new URL(location).origin}` : '';
    return new SocialRejectedError(`${platform} redirected ${what} (${status})${target}: ${wording.redirectFix}`, 'server');
  }
  return new SocialUnavailableError(`${platform} answered ${what} with an unexpected ${status}`);
}
