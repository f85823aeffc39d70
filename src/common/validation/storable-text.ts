// Text from another server (a platform's error, a provider's refusal, an account name) ends up in our columns.
// PostgreSQL refuses NUL in text and jsonb, and UTF-16 with an unpaired surrogate is not text; a value that breaks
// either would fail the write that records it, and with it the workflow step that tells the customer what happened.

/** Whether `text` can be stored as it is: no NUL, well-formed, at most `maxChars` UTF-16 units. */
export function isStorableText(text: string, maxChars: number): boolean {
  return text.length <= maxChars && !text.includes('\u0000') && text.isWellFormed();
}

// Long enough for any reason we write ourselves; another server's words past it are cut.
const reasonMaxChars = 2_000;

/**
 * A failure's reason made storable for people to read: NUL and unpaired surrogates become U+FFFD, and a reason
 * over 2,000 characters is cut, ending in "…".
 */
export function storableReason(text: string): string {
  const cut = text.length > reasonMaxChars ? `${text.slice(0, reasonMaxChars - 1)}…` : text;
  return cut.replaceAll('\u0000', '\uFFFD').toWellFormed();
}
