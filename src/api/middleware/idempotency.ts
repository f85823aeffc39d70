import type { Request, RequestHandler, Response } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { holdIdempotencyKey } from '../../domain/idempotency/hold-idempotency-key.ts';
import { requestBodyHash, type KeyedRequest, type StoredAnswer, type UploadedPart } from '../../domain/idempotency/idempotent-request.ts';
import { callerOf } from '../caller-of.ts';
import { setRequestKey } from '../request-key-of.ts';

// The headers of an answer that belong to it (and not to the attempt, like X-Request-Id and RateLimit-*).
const replayedHeaders = ['content-type', 'location', 'link', 'retry-after'];

/**
 * `Idempotency-Key` on POST (IETF draft, Stripe's semantics): the first answer to a key is stored for the workspace
 * and replayed to a retry of the same request with `Idempotent-Replayed: true`, without running anything. Runs after
 * authentication, rate limiting and request validation (a request refused there does not use its key), before the
 * routes; a dry run (`dryRun: true`) does not use its key either. Answers below 500 are stored; a 5xx gives the key back, so the client's retry runs the request again.
 *
 * A request holds its key for `idempotencyLockMs` (IDEMPOTENCY_LOCK_SECONDS), and renews the lock a few times as
 * often while it runs, however long it waits for its workflow. A lock not renewed for that long belongs to a process
 * that died (or lost its database), and a retry of the same request may take the key over: what the first execution
 * already did is found then, not done again (the publication routes record theirs under the key, see
 * recordPublicationPlan). So a retry of a request whose api died waits that long, and is told so in Retry-After.
 */
export function idempotency(deps: Pick<Deps, 'orm' | 'idempotentAnswers' | 'idempotencyLockMs'>): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('idempotency-key');
    // A dry run changes nothing, so there is nothing to make idempotent: it is answered afresh, and its key stays
    // free for the request it rehearses.
    if (req.method !== 'POST' || key === undefined || isDryRun(req.body)) return next();
    const request: KeyedRequest = {
      workspaceId: callerOf(res).workspaceId,
      key,
      method: req.method,
      path: req.originalUrl,
      hash: requestBodyHash(req.body, uploadedParts(req)),
    };
    const held = await holdIdempotencyKey(deps, request, (error) => req.log.debug({ err: error }, 'could not renew the lock of an Idempotency-Key'));
    if (held.state === 'answered') {
      // Whatever the operation: the stored answer may be one that carried a secret (see holdIdempotencyKey).
      res.status(held.answer.status).set(held.answer.headers).set({ 'Idempotent-Replayed': 'true', 'Cache-Control': 'no-store' }).send(held.answer.body);
      return;
    }
    setRequestKey(res, held.requestKey);
    // The request runs again after its first run's api died: what that run did is found, not done again (createOnce,
    // the publication's record, the run's memo), and the client is told so.
    if (held.takenOver) res.set('Idempotent-Recovered', 'true');
    storeAnswerBeforeSending(res, held.settle);
    next();
  };
}

/**
 * Holds the answer back until `store` has settled, so a client that retries the moment it reads the answer finds it
 * stored. Every answer of the API leaves through `res.end` (`json` and `send` end there, with the whole body). If
 * storing fails the answer still goes out; the key stays locked until its lock runs out (no longer renewed), and a
 * retry then takes it over.
 */
function storeAnswerBeforeSending(res: Response, store: (answer: StoredAnswer) => Promise<void>): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    res.end = end as Response['end'];
    const [chunk] = args;
    const body = Buffer.isBuffer(chunk) ? chunk.toString('utf8') : typeof chunk === 'string' ? chunk : '';
    const headers: Record<string, string> = {};
    for (const name of replayedHeaders) {
      const value = res.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    store({ status: res.statusCode, headers, body })
      .catch((error: unknown) => res.req.log.warn({ err: error }, 'could not store the answer of an Idempotency-Key'))
      .finally(() => end(...args));
    return res;
  }) as Response['end'];
}

function isDryRun(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'dryRun' in body && body.dryRun === true;
}

function uploadedParts(req: Request): UploadedPart[] {
  return Array.isArray(req.files) ? req.files : [];
}
