import type { RequestHandler } from 'express';
import { requireScope } from '../../domain/api-keys/require-scope.ts';
import { callerOf } from '../caller-of.ts';
import { operationScopes, type ScopedOperation } from '../operation-scopes.ts';
import type { RouteOf } from '../route-templates.ts';

const readingMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses with 403 `insufficient-scope` a request its key's scope does not cover (operation-scopes.ts). Runs right
 * after authentication, before the request is validated: a key is told what it may not do before what it sent
 * wrong. A request that names no operation passes on, to be answered 404 or 405 by what follows.
 */
export function requireOperationScope(routeOf: RouteOf): RequestHandler {
  return (req, res, next) => {
    const operation = routeOf.operationOf(req, res) as ScopedOperation | undefined;
    if (operation) requireScope(callerOf(res), operationScopes[operation], `${req.method} ${routeOf(req, res)}`);
    // A request that names no operation is answered 404 or 405 by what follows; should a route ever answer a path the
    // table does not know (a spelling the matching missed), nothing but a read passes on a narrower key.
    else if (!readingMethods.has(req.method)) requireScope(callerOf(res), 'full', `${req.method} ${req.path}`);
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
