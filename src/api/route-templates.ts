import type { Request, Response } from 'express';
import { readOpenApiDocument } from './openapi-document.ts';
import { oncePerKey } from '../common/once-per-key.ts';

type Template = { template: string; pattern: RegExp; literalSegments: number };
type Spec = { servers: Array<{ url: string }>; paths: Record<string, Record<string, { operationId?: string } | undefined>> };

/** Which API route a request was for (its template), and which operation of openapi.yaml (its operationId). */
export type RouteOf = {
  (req: Request, res: Response): string;
  operationOf: (req: Request, res: Response) => string | undefined;
};

/** The label of a request that matches no known route: one value, however many different URLs are sent. */
export const unmatchedRoute = 'unmatched';

/**
 * Names the route a request was for, as a metric label with a bounded set of values: the OpenAPI path template for
 * the API (`/api/v1/posts/{id}`, also for requests refused before any route ran, e.g. 401 or 429), the Express
 * route for the few paths outside the contract (`/health`, `/dashboard/api/posts/{postId}/video`), else `unmatched`.
 * Asked once the answer is done (Express knows the route only after routing), by the metrics and the span; worked
 * out once per request and kept in `res.locals.routeTemplate`.
 */
export const routeTemplates = oncePerKey(readRouteTemplates);

function readRouteTemplates(specPath: string): RouteOf {
  const spec = readOpenApiDocument(specPath) as Spec;
  const base = spec.servers[0]!.url.replace(/\/$/, '');
  const templates: Template[] = Object.keys(spec.paths)
    .map((path) => {
      const template = `${base}${path}`;
      const source = template
        .split('/')
        .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/');
      // Case-insensitive, as Express routes and the OpenAPI validator match: a route answered under another case
      // must have the same template (scopes and metrics read it).
      return { template, pattern: new RegExp(`^${source}/?$`, 'i'), literalSegments: template.split('/').filter((segment) => !segment.startsWith('{')).length };
    })
    // Literal segments win over parameters (`/webhooks/{id}/test` before a template that would take "test" as an id).
    .sort((a, b) => b.literalSegments - a.literalSegments);

  const templateOf = (req: Request): string => {
    const path = req.originalUrl.split('?')[0]!;
    const api = templates.find(({ pattern }) => pattern.test(path));
    if (api) return api.template;
    // Express keeps the route that answered; its pattern is written in our code, so its values are bounded too.
    const route = (req.route as { path?: unknown } | undefined)?.path;
    if (typeof route === 'string') return `${req.baseUrl}${route}`.replace(/[:*](\w+)/g, '{$1}');
    return unmatchedRoute;
  };
  const routeOf = (req: Request, res: Response): string => {
    const locals = res.locals as { routeTemplate?: string };
    locals.routeTemplate ??= templateOf(req);
    return locals.routeTemplate;
  };
  const operations = new Map<string, string>();
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (operation?.operationId) operations.set(`${method.toUpperCase()} ${base}${path}`, operation.operationId);
    }
  }
  // Express answers HEAD with the GET route.
  const operationOf = (req: Request, res: Response) => operations.get(`${req.method === 'HEAD' ? 'GET' : req.method} ${routeOf(req, res)}`);
  return Object.assign(routeOf, { operationOf });
}
