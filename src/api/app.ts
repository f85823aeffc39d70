import express, { type Express } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { oncePerKey } from '../common/once-per-key.ts';
import { dereferencedOpenApiDocument } from './openapi-document.ts';
import { fileURLToPath } from 'node:url';
import type { LastUsedTracker } from '../domain/api-keys/last-used-tracker.ts';
import type { Deps } from '../domain/deps.ts';
import { AppError } from '../common/errors/app-error.ts';
import { openApiFormats } from '../common/validation/formats.ts';
import { authenticate } from './middleware/authenticate.ts';
import { idempotency } from './middleware/idempotency.ts';
import { problemResponse } from './middleware/problem-response.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { requestContext } from './middleware/request-context.ts';
import { requestLogging } from './middleware/request-logging.ts';
import { requestMetrics } from './middleware/request-metrics.ts';
import { requireOperationScope } from './middleware/require-scope.ts';
import { noSniff } from './middleware/security-headers.ts';
import { wellFormedBody } from './middleware/well-formed-body.ts';
import { rememberRouteRegexps } from './openapi-route-regexps.ts';
import type { RateLimiter } from './rate-limits/rate-limiter.ts';
import { routeTemplates } from './route-templates.ts';
import { coverUploader, uploadSizeGuard } from './middleware/upload-size-guard.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { brandKitRoutes } from './routes/brand-kits.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { docsRoutes } from './routes/docs.ts';
import { mcpRoutes } from './mcp/mcp-routes.ts';
import { fileRoutes } from './routes/files.ts';
import { healthRoutes } from './routes/health.ts';
import { imageLinkRoutes } from './routes/image-links.ts';
import { oauthCallbackRoutes } from './routes/oauth-callback.ts';
import { oauthConsentRoutes } from './routes/oauth-consent.ts';
import { postActionRoutes } from './routes/post-actions.ts';
import { postDownloadRoutes } from './routes/post-download.ts';
import { postPublishingRoutes } from './routes/post-publishing.ts';
import { postVersionRoutes } from './routes/post-versions.ts';
import { postRoutes } from './routes/posts.ts';
import { projectRoutes } from './routes/projects.ts';
import { scheduleRoutes } from './routes/schedules.ts';
import { socialConnectionRoutes } from './routes/social-connections.ts';
import { socialPlatformRoutes } from './routes/social-platforms.ts';
import { usageRoutes } from './routes/usage.ts';
import { videoRoutes } from './routes/video.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { workspaceRoutes } from './routes/workspace.ts';

export const specPath = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));

export type AppOptions = {
  deps: Deps;
  lastUsed: LastUsedTracker;
  rateLimiter: RateLimiter;
  /** TRUST_PROXY_HOPS: how many proxies' X-Forwarded-For entries name the client (`req.ip`); 0 trusts none. */
  trustProxyHops: number;
  urlSigningSecret: string;
  /** Check every response against openapi.yaml (tests): a response that drifts from the spec becomes a 500. */
  validateResponses: boolean;
};

export function createApp(options: AppOptions): Express {
  const { deps } = options;
  const app = express();
  app.disable('x-powered-by');
  app.use(noSniff);
  // Express's own count of hops: the client is the address that many entries back from the end of X-Forwarded-For
  // (each trusted proxy appends the address it was reached from); 0 keeps the connection's address.
  app.set('trust proxy', options.trustProxyHops);

  const routeOf = routeTemplates(specPath);
  app.use(requestMetrics(routeOf));
  app.use(requestLogging(deps.logger), requestContext(routeOf));
  app.use(healthRoutes(deps));
  app.use(docsRoutes(specPath));
  if (deps.storage.driver === 'filesystem') app.use(fileRoutes(deps.storage, options.urlSigningSecret));
  // The dashboard editor and its own small API: outside /api/v1 and the public contract (see docs/api.md, Dashboard).
  app.use(dashboardRoutes({ deps, lastUsed: options.lastUsed, rateLimiter: options.rateLimiter }));
  // The consent page the authorizationUrl leads to, and where OAuth platforms send the person back to: public,
  // outside the API and its keys (docs/social-platforms.md).
  app.use(oauthConsentRoutes(deps, options.rateLimiter), oauthCallbackRoutes(deps, options.rateLimiter));
  // The lasting image links Nostr notes carry: public, outside the API and its keys (docs/api.md, Lasting image links).
  app.use(imageLinkRoutes(deps, options.rateLimiter));
  // The MCP server for AI agents: the same keys, rate limits and use cases as the API, outside its contract (docs/agents.md).
  app.use(mcpRoutes({ deps, lastUsed: options.lastUsed, rateLimiter: options.rateLimiter, specPath }));

  // The API proper: authenticated, rate-limited and held to the key's scope before anything else looks at the request.
  app.use('/api/v1', authenticate(deps.orm, options.lastUsed, options.rateLimiter), rateLimit(options.rateLimiter), requireOperationScope(routeOf));
  app.post('/api/v1/projects/:id/cover', uploadSizeGuard());
  app.use('/api/v1', express.json({ limit: '256kb' }), wellFormedBody);
  rememberRouteRegexps();
  app.use(openApiValidator(options.validateResponses));
  // After the validator: the key's format is checked there, and the body it hashes is parsed.
  app.use('/api/v1', idempotency(deps));
  app.use('/api/v1', projectRoutes(deps), brandKitRoutes(deps), apiKeyRoutes({ ...deps, lastUsed: options.lastUsed }));
  app.use('/api/v1', postRoutes(deps), postActionRoutes(deps), postVersionRoutes(deps), postDownloadRoutes(deps));
  app.use('/api/v1', postPublishingRoutes(deps), socialConnectionRoutes(deps), socialPlatformRoutes(deps), webhookRoutes(deps), scheduleRoutes(deps));
  app.use('/api/v1', usageRoutes(deps), workspaceRoutes(deps), videoRoutes(deps));

  app.use((req, _res, next) => next(new AppError('not-found', `Nothing is served at ${req.method} ${req.path}.`)));
  app.use(problemResponse);
  return app;
}

/**
 * The OpenAPI validator, one per process and setting. It compiles a route's schemas on the route's first request,
 * which a process that builds many apps (the test suite, the bench) would otherwise pay again for each. It keeps
 * nothing of an app but the `app.param` handlers it installs in the first one, which put its coerced path parameters
 * back into `req.params`: every path parameter of openapi.yaml is a string, which coercion leaves as it is.
 *
 * It is handed openapi.yaml with its `$ref`s already resolved and its components left out: it adds the components to
 * every schema it compiles, so that references resolve, and ajv then walks all of them for each route and status.
 */
const openApiValidator = oncePerKey((validateResponses: boolean) =>
  OpenApiValidator.middleware({
    apiSpec: withoutComponents(dereferencedOpenApiDocument(specPath)) as unknown as Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'],
    validateRequests: { allErrors: true },
    // Formats that really validate (real calendar dates, WHATWG-parsed URLs with a host, canonical UUIDs).
    formats: openApiFormats,
    validateResponses,
    // Authentication is ours (middleware/authenticate.ts), with the error bodies and statuses we promise.
    validateSecurity: false,
    fileUploader: coverUploader,
  }),
);

/** The document without the components its resolved `$ref`s pointed at; security schemes stay (named by `security`). */
function withoutComponents(document: Record<string, unknown>): Record<string, unknown> {
  const { securitySchemes } = (document.components ?? {}) as { securitySchemes?: unknown };
  return { ...document, components: { securitySchemes } };
}
