import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../../logger.ts';

const acceptableRequestId = /^[\w.:-]{1,128}$/;

/**
 * One log line per request with a request id: the caller's X-Request-Id when it is sensible, else a new one. The
 * id is echoed in the X-Request-Id header and in every problem body, so a report can be matched to the log.
 */
export function requestLogging(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: requestIdOf,
    // A 503 (a dependency is down) is an answer, not a bug; a 500 is a bug.
    customLogLevel(_req, res) {
      if (res.statusCode === 500) return 'error';
      if (res.statusCode > 500) return 'warn';
      return 'info';
    },
    customErrorMessage: (_req, res) => `request failed with status ${res.statusCode}`,
    customProps(_req, res) {
      const caller = (res as ServerResponse & { locals?: { caller?: { workspaceId: string } } }).locals?.caller;
      return caller ? { workspaceId: caller.workspaceId } : {};
    },
    serializers: {
      // Signed-URL signatures are capabilities: keep them out of logs.
      req: (req: { id: string; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        url: req.url.replace(/signature=[^&]+/, 'signature=[redacted]'),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}

function requestIdOf(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && acceptableRequestId.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}
