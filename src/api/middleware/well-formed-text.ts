import type { RequestHandler } from 'express';
import { AppError } from '../../errors/app-error.ts';

/**
 * Refuses a JSON body holding a string with an unpaired surrogate (`"\ud800"` is valid JSON but not Unicode text):
 * PostgreSQL would store U+FFFD in its place, so what a client reads back would differ from what it sent. The
 * schema cannot say this portably (the fuzzer's regex engine has no surrogates), so it is checked here, once, for
 * every body, naming the member.
 */
export const wellFormedText: RequestHandler = (req, _res, next) => {
  const path = illFormedPath(req.body as unknown, '');
  if (path === undefined) return next();
  next(new AppError('validation-failed', `The request has 1 invalid member(s): body ${path || '/'} must be well-formed Unicode text.`, {
    errors: [{ location: 'body', path: path || '/', message: 'must be well-formed Unicode text (no unpaired surrogate)' }],
  }));
};

// Iterative, so a deeply nested body cannot exhaust the stack.
function illFormedPath(body: unknown, root: string): string | undefined {
  const pending: Array<[unknown, string]> = [[body, root]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, path] = next;
    if (typeof value === 'string') {
      if (!value.isWellFormed()) return path;
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, member] of Object.entries(value)) {
        const memberPath = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        if (!key.isWellFormed()) return memberPath;
        pending.push([member, memberPath]);
      }
    }
  }
  return undefined;
}
