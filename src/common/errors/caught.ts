// What a catch clause holds may be anything that was thrown, not only an Error. No imports: workflow code uses this
// file too.

/** The message of what was thrown, for a log line or a report. */
export function messageOf(caught: unknown): string {
  return caught instanceof Error ? caught.message : String(caught);
}

/** What was thrown as an Error, for a rejection or a `cause`. */
export function errorOf(caught: unknown): Error {
  return caught instanceof Error ? caught : new Error(String(caught));
}

/** What was thrown and its causes, outermost first, at most `depth` of them (a cause chain may loop). */
export function* causesOf(caught: unknown, depth = 8): Generator<Error> {
  for (let current = caught, level = 0; current instanceof Error && level < depth; current = current.cause, level += 1) yield current;
}
