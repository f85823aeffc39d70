import { redactCredentials } from './redact-credentials.ts';

// Another server's words (a platform's error, a provider's refusal) become a reason users read and logs keep, and a
// careless server echoes back the token it was sent. Those words pass through here, whoever called the server.

/** `text` with each of `secrets` blanked, should a server echo one back, and any credential a URL in it carries. */
export function redactSecrets(text: string, secrets: string[]): string {
  let redacted = text;
  for (const secret of secrets) if (secret) redacted = redacted.replaceAll(secret, '[redacted]');
  return redactCredentials(redacted);
}

/**
 * `text` redacted (redactSecrets), then cut to `maxChars`: the other way round, a cut through the middle of a secret
 * leaves its first part, which no longer matches, in the clear.
 */
export function redactedWords(text: string, secrets: string[], maxChars: number): string {
  return redactSecrets(text, secrets).slice(0, maxChars);
}
