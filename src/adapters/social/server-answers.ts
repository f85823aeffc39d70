import { SocialOutcomeUnknownError, SocialRejectedError, SocialUnavailableError, type ServerAnswer } from './social-connector.ts';

// A post sent to several servers at once (Nostr relays) fails with each server's answer, so the attempt's record
// shows who refused and why, as a published one does (PublishedSocialPost.answers).

/** Every server refused the post for good. */
export class ServersRefusedError extends SocialRejectedError {
  readonly answers: ServerAnswer[];
  constructor(reason: string, answers: ServerAnswer[]) {
    super(reason);
    this.answers = answers;
  }
}

/** None accepted, and some could not be asked or refused for now (a rate limit, an error of their own). */
export class ServersUnavailableError extends SocialUnavailableError {
  readonly answers: ServerAnswer[];
  constructor(message: string, answers: ServerAnswer[]) {
    super(message);
    this.answers = answers;
  }
}

/** None accepted, and some were sent the post and did not answer: they may have it. */
export class ServersUnansweredError extends SocialOutcomeUnknownError {
  readonly answers: ServerAnswer[];
  constructor(message: string, answers: ServerAnswer[]) {
    super(message);
    this.answers = answers;
  }
}

/** The servers' answers a failed publish carries, or null. */
export function serverAnswersOf(error: unknown): ServerAnswer[] | null {
  const failed = error instanceof ServersRefusedError || error instanceof ServersUnavailableError || error instanceof ServersUnansweredError;
  return failed ? error.answers : null;
}
