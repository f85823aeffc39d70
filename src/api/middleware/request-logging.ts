import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from '../../logger.ts';
import { redactCredentials } from '../../common/redaction/redact-credentials.ts';

declare module 'http' {
  // Only an interface merges into Node's own.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface IncomingMessage {
    /** The request id (see requestLogging). */
    id: string;
    /** A logger whose lines name the request (see requestLogging). */
    log: Logger;
  }
}

const acceptableRequestId = /^[\w.:-]{1,128}$/;

type Described = { id: string; method: string; url: string };

/**
 * One log line per request once its answer is done (or abandoned): `request completed`, or `request failed with
 * status N` for a 5xx, with the request (id, method, URL), the status, the time taken in ms and the caller's
 * workspace. A 500 is logged as an error, another 5xx (a dependency is down: an answer, not a bug) as a warning,
 * the rest as info; a client that left before the whole answer was sent shows status `aborted`.
 *
 * Each request gets an id: the caller's X-Request-Id when it is sensible, else a new one. The id is echoed in the
 * X-Request-Id header and in every problem body, so a report can be matched to the log. `req.log` is a logger whose
 * lines carry the request; it is made the first time `req.log` is read, since most requests never log through it
 * (pino-http, which this replaces, made two child loggers per request, a visible share of what a GET /posts costs
 * beyond its bare Express + pg floor).
 */
export function requestLogging(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    req.id = requestIdOf(req, res);
    // Taken now: routers rewrite req.url on the way.
    const request = described(req);
    let requestLogger: Logger | undefined;
    Object.defineProperty(req, 'log', { configurable: true, enumerable: false, get: () => (requestLogger ??= logger.child({ req: request })) });
    res.once('close', () => {
      const finished = res.writableFinished;
      const level = !finished || res.statusCode < 500 ? 'info' : res.statusCode === 500 ? 'error' : 'warn';
      if (!logger.isLevelEnabled(level)) return;
      const workspaceId = (res.locals as { caller?: { workspaceId: string } }).caller?.workspaceId;
      const line = {
        req: request,
        res: { statusCode: finished ? res.statusCode : 'aborted' },
        responseTime: Math.round(performance.now() - started),
        ...(workspaceId ? { workspaceId } : {}),
      };
      logger[level](line, finished && res.statusCode >= 500 ? `request failed with status ${res.statusCode}` : 'request completed');
    });
    next();
  };
}

function requestIdOf(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && acceptableRequestId.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}

/**
 * The request as logged; the credentials a URL can carry (a signed link's signature, an OAuth callback's code and
 * state) are kept out.
 */
function described(req: IncomingMessage): Described {
  return { id: req.id, method: req.method ?? '', url: redactCredentials(req.url ?? '') };
}
