import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

// The api process's metrics, in a registry of its own (a test process also runs a worker, whose counters must not
// show up here). The names and labels are listed in docs/operations.md (Metrics).

export const apiRegistry = new Registry();
collectDefaultMetrics({ register: apiRegistry });

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time from a request arriving to its answer being sent, by route template (never the raw URL), method and status.',
  labelNames: ['route', 'method', 'status'] as const,
  // From a cached read (a few ms) to generate and render waiting for their workflow (API_WAIT_SECONDS, 25 s).
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [apiRegistry],
});

export const httpRequestsInFlight = new Gauge({
  name: 'http_requests_in_flight',
  help: 'Requests received and not yet answered.',
  registers: [apiRegistry],
});

/** Which limit refused: an API key's, a workspace's (all its keys), or failed authentications from an address. */
const rateLimitKinds = ['api-key', 'workspace', 'auth-failures'] as const;
export type RateLimitKind = (typeof rateLimitKinds)[number];

export const rateLimitRefusals = new Counter({
  name: 'api_rate_limit_refusals_total',
  help: 'Requests answered 429 by a rate limit, by the limit that refused them.',
  labelNames: ['limit'] as const,
  registers: [apiRegistry],
});
// Every series from zero, so a rate over the first refusal is not lost (Prometheus sees the counter appear at 1).
for (const limit of rateLimitKinds) rateLimitRefusals.inc({ limit }, 0);

export const rateLimitStoreFailures = new Counter({
  name: 'api_rate_limit_store_failures_total',
  help: 'Statements to the shared rate-limit store (PostgreSQL) that failed; the limits they counted were counted in this process only.',
  registers: [apiRegistry],
});
