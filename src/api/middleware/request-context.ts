import { trace } from '@opentelemetry/api';
import type { Request, RequestHandler, Response } from 'express';
import { unmatchedRoute } from '../route-templates.ts';
import { runForRequest } from '../../adapters/telemetry/request-id-context.ts';
import { requestIdKey } from '../../adapters/temporal/request-id.ts';

/**
 * Carries the request id (set by requestLogging) through the rest of the request, so the workflows it starts record
 * it, and names the request's span (started by the HTTP instrumentation, a no-op while tracing is off) after its
 * route template (the one the metrics use), `POST /api/v1/posts/{id}/generate`, rather than the bare method.
 */
export function requestContext(routeOf: (req: Request, res: Response) => string): RequestHandler {
  return (req, res, next) => {
    const requestId = req.id;
    const span = trace.getActiveSpan();
    if (span) {
      span.setAttribute(requestIdKey, requestId);
      res.once('finish', () => {
        const route = routeOf(req, res);
        if (route === unmatchedRoute) return;
        span.updateName(`${req.method} ${route}`);
        span.setAttribute('http.route', route);
      });
    }
    runForRequest(requestId, next);
  };
}
