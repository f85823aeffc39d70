import { createRequire } from 'node:module';

type Options = { sensitive?: boolean; strict?: boolean };
type PathToRegexp = (path: unknown, options?: Options) => unknown;

const pathToRegexpModule = createRequire(import.meta.url)('path-to-regexp') as { pathToRegexp: PathToRegexp };
const compile = pathToRegexpModule.pathToRegexp;
const compiled = new Map<string, unknown>();

/**
 * express-openapi-validator (5.6) finds a request's route by compiling the spec's routes with path-to-regexp, on
 * every request, one after another until one matches: GET /posts, tried after the more specific routes, cost about
 * twenty compilations, a tenth of the request's own time. Compiling is pure (the validator only reads the result),
 * so each route's regexp is remembered.
 */
export function rememberRouteRegexps(): void {
  if (pathToRegexpModule.pathToRegexp !== compile) return;
  pathToRegexpModule.pathToRegexp = (path, options) => {
    // The validator's own calls: a route and the app's two routing settings. Any other call is passed on as it is.
    if (typeof path !== 'string' || !options || !('sensitive' in options && 'strict' in options) || Object.keys(options).length !== 2)
      return compile(path, options);
    const key = `${options.sensitive ? 1 : 0}${options.strict ? 1 : 0}${path}`;
    let regexp = compiled.get(key);
    if (regexp === undefined) {
      regexp = compile(path, options);
      compiled.set(key, regexp);
    }
    return regexp;
  };
}
