import { readFileSync } from 'node:fs';
import type { Request, RequestHandler, Response } from 'express';
import { parse } from 'yaml';
import { requireScope } from '../../domain/api-keys/require-scope.ts';
import { callerOf } from '../caller-of.ts';
import { operationScopes, type ScopedOperation } from '../operation-scopes.ts';

const readingMethods = new Set(['GET', 'OPTIONS']);

type Spec = { servers: Array<{ url: string }>; paths: Record<string, Record<string, { operationId?: string } | undefined>> };

/**
 * Refuses with 403 `insufficient-scope` a request its key's scope does not cover (operation-scopes.ts). Runs right
 * after authentication, before the request is validated: a key is told what it may not do before what it sent
 * wrong. A request that names no operation passes on, to be answered 404 or 405 by what follows.
 */
export function requireOperationScope(specPath: string, routeOf: (req: Request, res: Response) => string): RequestHandler {
  const spec = parse(readFileSync(specPath, 'utf8')) as Spec;
  const base = spec.servers[0]!.url.replace(/\/$/, '');
  const operationOf = new Map<string, ScopedOperation>();
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (operation?.operationId) operationOf.set(`${method.toUpperCase()} ${base}${path}`, operation.operationId as ScopedOperation);
    }
  }
  return (req, res, next) => {
    // Express answers HEAD with the GET route.
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const operation = operationOf.get(`${method} ${routeOf(req, res)}`);
    if (operation) requireScope(callerOf(res), operationScopes[operation], `${req.method} ${routeOf(req, res)}`);
    // A request that names no operation is answered 404 or 405 by what follows; should a route ever answer a path the
    // table does not know (a spelling the matching missed), nothing but a read passes on a narrower key.
    else if (!readingMethods.has(method)) requireScope(callerOf(res), 'full', `${req.method} ${req.path}`);
    next();
  };
}

/** The same check for a route outside openapi.yaml (the dashboard's API), naming its operation in the table. */
export function requireScopeOf(operation: ScopedOperation): RequestHandler {
  return (req, res, next) => {
    requireScope(callerOf(res), operationScopes[operation], `${req.method} ${req.baseUrl}${(req.route as { path?: string } | undefined)?.path ?? req.path}`);
    next();
  };
}
