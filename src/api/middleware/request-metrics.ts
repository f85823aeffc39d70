import type { Request, RequestHandler, Response } from 'express';
import { httpRequestDuration, httpRequestsInFlight } from '../../adapters/metrics/api-metrics.ts';

/**
 * Times every request and counts those in flight. The route label is a template (`routeOf`), never the raw URL: a
 * label per id would grow Prometheus' series without bound. A client that leaves before the whole answer was sent
 * is recorded with status `aborted`.
 */
export function requestMetrics(routeOf: (req: Request, res: Response) => string): RequestHandler {
  return (req, res, next) => {
    const end = httpRequestDuration.startTimer();
    httpRequestsInFlight.inc();
    res.once('close', () => {
      httpRequestsInFlight.dec();
      end({ route: routeOf(req, res), method: req.method, status: res.writableFinished ? String(res.statusCode) : 'aborted' });
    });
    next();
  };
}
