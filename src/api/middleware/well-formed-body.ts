import type { RequestHandler } from 'express';
import { AppError } from '../../common/errors/app-error.ts';

// No body of this API nests deeper than a few levels. A deeper one is refused here, once, so that nothing after
// the parser (the Idempotency-Key's body hash, a handler) has to walk it with care: an operation without a body
// schema accepts any JSON, and a recursive walk of 10 KB of `[` would exhaust the stack (a 500).
const maxDepth = 32;

/**
 * Refuses a JSON body nested deeper than `maxDepth`, or holding a string with an unpaired surrogate (`"\ud800"` is
 * valid JSON but not Unicode text): PostgreSQL would store U+FFFD in its place, so what a client reads back would
 * differ from what it sent. The schema cannot say either portably (the fuzzer's regex engine has no surrogates), so
 * both are checked here, once, for every body, naming the member.
 */
export const wellFormedBody: RequestHandler = (req, _res, next) => {
  const fault = firstFault(req.body as unknown);
  if (fault === undefined) return next();
  const path = fault.path || '/';
  next(
    new AppError('validation-failed', `The request has 1 invalid member(s): body ${path} ${fault.message}.`, {
      errors: [{ location: 'body', path, message: fault.message }],
    }),
  );
};

// Iterative, so a deeply nested body cannot exhaust the stack before its depth is seen.
function firstFault(body: unknown): { path: string; message: string } | undefined {
  const illFormed = 'must be well-formed Unicode text (no unpaired surrogate)';
  const pending: Array<[unknown, string, number]> = [[body, '', 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, path, depth] = next;
    if (typeof value === 'string') {
      if (!value.isWellFormed()) return { path, message: illFormed };
    } else if (typeof value === 'object' && value !== null) {
      if (depth === maxDepth) return { path, message: `must not nest deeper than ${maxDepth} levels` };
      for (const [key, member] of Object.entries(value)) {
        const memberPath = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        if (!key.isWellFormed()) return { path: memberPath, message: illFormed };
        pending.push([member, memberPath, depth + 1]);
      }
    }
  }
  return undefined;
}
