// The one error type of the service. Use cases throw it with a problem code; the error middleware turns it into an
// RFC 9457 problem+json body. The table below is the only place that maps codes to HTTP statuses and titles, and it
// mirrors the `Problem.type` enum in openapi.yaml.
export const problemTypes = {
  'validation-failed': { status: 400, title: 'Validation failed' },
  'malformed-request': { status: 400, title: 'Malformed request' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  'plan-upgrade-required': { status: 403, title: 'Plan upgrade required' },
  'plan-limit-reached': { status: 403, title: 'Plan limit reached' },
  'insufficient-scope': { status: 403, title: 'Insufficient scope' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  'idempotency-key-in-use': { status: 409, title: 'Idempotency key in use' },
  'generation-failed': { status: 422, title: 'Generation failed' },
  'idempotency-key-reused': { status: 422, title: 'Idempotency key reused' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'internal-error': { status: 500, title: 'Internal error' },
  'service-unavailable': { status: 503, title: 'Service unavailable' },
} as const;

export type ProblemCode = keyof typeof problemTypes;

export type FieldError = { location: 'body' | 'query' | 'path' | 'header'; path: string; message: string };
type PlanName = 'starter' | 'growth';
/** The API key scopes (src/adapters/database/entities/api-key.ts). */
type ScopeName = 'read' | 'publish' | 'full';
/**
 * The plan limits (src/domain/workspaces/plans.ts); `concurrentVideos` counts jobs encoding at once,
 * `monthlyGenerations` the images generated since the start of the month (UTC).
 */
export type QuotaName = 'activeProjects' | 'brandKits' | 'schedules' | 'webhooks' | 'apiKeys' | 'socialConnections' | 'concurrentVideos' | 'monthlyGenerations';
/** What a `plan-limit-reached` names: a count limit, or the shortest interval a schedule may fire at. */
type ProblemQuotaName = Exclude<QuotaName, 'concurrentVideos'> | 'scheduleIntervalMinutes';

/** Members added to the problem body next to type/title/status/detail. */
export type ProblemExtras = {
  errors?: FieldError[];
  /** `used` and `resetsAt` only on `monthlyGenerations`: how many this month, and when the month ends. */
  quota?: { name: ProblemQuotaName; plan: PlanName; limit: number; used?: number; resetsAt?: string };
  requiredPlan?: 'growth';
  /** On `insufficient-scope`: the scope the operation needs, and the one the calling key has. */
  requiredScope?: ScopeName;
  keyScope?: ScopeName;
  /** Sent as a Retry-After header, not in the body. */
  retryAfterSeconds?: number;
};

export class AppError extends Error {
  readonly code: ProblemCode;
  readonly extras: ProblemExtras;

  constructor(code: ProblemCode, detail: string, extras: ProblemExtras = {}) {
    super(detail);
    this.name = 'AppError';
    this.code = code;
    this.extras = extras;
  }

  get status(): number {
    return problemTypes[this.code].status;
  }
}

export function notFound(what: string): AppError {
  return new AppError('not-found', `${what} was not found in this workspace.`);
}
