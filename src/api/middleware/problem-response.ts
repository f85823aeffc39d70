import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Schemas } from '../schemas.ts';
import { isDatabaseUnavailable } from '../../adapters/database/database-unavailable.ts';
import { isStorageUnavailable } from '../../adapters/object-storage/storage-unavailable.ts';
import { AppError, problemTypes, type FieldError, type ProblemCode } from '../../common/errors/app-error.ts';
import { multipartFailure } from './upload-size-guard.ts';

type ValidatorError = Error & {
  status: number;
  errors?: Array<{ path: string; message: string }>;
  headers?: Record<string, string>;
};

/**
 * The one error middleware. Domain errors (AppError), request-validator errors, body-parser errors and anything
 * unexpected all leave as an RFC 9457 problem document. A database that cannot answer is a 503 with Retry-After (the
 * request can be sent again). Unexpected errors are logged with their stack and answered with a generic 500 that
 * leaks nothing.
 */
export const problemResponse: ErrorRequestHandler = (error: unknown, req, res, _next) => {
  const appError = toAppError(error, req);
  if (appError.code === 'internal-error') req.log.error({ err: error }, 'request failed unexpectedly');
  // What the dependency said stays here: the answer only names the dependency.
  if (appError.code === 'service-unavailable') req.log.warn({ err: error }, 'a dependency did not answer');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendProblem(req, res, appError, isValidatorError(error) ? error.headers : undefined);
};

function sendProblem(req: Request, res: Response, error: AppError, headers: Record<string, string> = {}): void {
  const body = problemOf(error, req.originalUrl.split('?')[0] ?? req.originalUrl, String(res.getHeader('x-request-id') ?? ''));
  const { retryAfterSeconds } = error.extras;
  if (retryAfterSeconds !== undefined) res.set('Retry-After', String(retryAfterSeconds));
  res.status(body.status).set(headers).type('application/problem+json').json(body);
}

/** The problem document of an error: what REST answers, and what an MCP tool's error carries. */
export function problemOf(error: AppError, instance: string, requestId: string): Schemas['Problem'] {
  const { status, title } = problemTypes[error.code];
  const { retryAfterSeconds: _retryAfter, ...extras } = error.extras;
  return { type: `/problems/${error.code}`, title, status, detail: error.message, instance, requestId, ...extras };
}

function toAppError(error: unknown, req: Request): AppError {
  if (error instanceof AppError) return error;
  if (isBodyParserError(error)) {
    if (error.type === 'entity.too.large') return new AppError('payload-too-large', 'The request body is too large.');
    return new AppError('malformed-request', 'The request body is not valid JSON.');
  }
  if (isValidatorError(error)) return multipartFailure(error, req) ?? fromValidator(error, req);
  return appErrorOf(error);
}

/**
 * The AppError that an error thrown by a use case answers as: itself, a 503 for a dependency that does not answer, else
 * a generic 500 that leaks nothing.
 */
export function appErrorOf(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) {
    return new AppError('service-unavailable', 'The database is not answering right now; try again shortly.', { retryAfterSeconds: 5 });
  }
  if (isStorageUnavailable(error)) {
    return new AppError('service-unavailable', 'Object storage is not answering right now; try again shortly.', { retryAfterSeconds: 5 });
  }
  return new AppError('internal-error', 'An unexpected error occurred; quote the request id when reporting it.');
}

const validatorStatusCodes: Record<number, ProblemCode> = {
  400: 'validation-failed',
  404: 'not-found',
  405: 'method-not-allowed',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
};

function fromValidator(error: ValidatorError, req: Request): AppError {
  const code = validatorStatusCodes[error.status];
  if (!code) return new AppError('internal-error', 'An unexpected error occurred; quote the request id when reporting it.');
  switch (code) {
    case 'validation-failed': {
      const errors = (error.errors ?? []).map(toFieldError);
      const list = errors.map((item) => `${item.location} ${item.path} ${item.message}`).join('; ');
      return new AppError('validation-failed', `The request has ${errors.length} invalid member(s): ${list}.`, { errors });
    }
    case 'not-found':
      return new AppError('not-found', `No operation ${req.method} ${req.path} exists.`);
    case 'method-not-allowed':
      return new AppError('method-not-allowed', `${req.method} is not allowed on ${req.path}.`);
    case 'payload-too-large':
      return new AppError('payload-too-large', `The request body is too large: ${error.message}.`);
    default:
      return new AppError('unsupported-media-type', `Unsupported request content type: ${req.headers['content-type'] ?? 'none'}.`);
  }
}

// Validator paths look like `/body/title`, `/query/pageSize`, `/params/id`, `/headers/x-y`.
const locations: Record<string, FieldError['location']> = { body: 'body', query: 'query', params: 'path', headers: 'header' };

function toFieldError(item: { path: string; message: string }): FieldError {
  const [, section = '', ...rest] = item.path.split('/');
  const location = locations[section] ?? 'body';
  const path = location === 'body' ? `/${rest.join('/')}` : rest.join('/');
  return { location, path, message: item.message };
}

function isValidatorError(error: unknown): error is ValidatorError {
  return error instanceof Error && typeof (error as { status?: unknown }).status === 'number';
}

function isBodyParserError(error: unknown): error is Error & { type: string } {
  return error instanceof Error && typeof (error as { type?: unknown }).type === 'string' && 'expose' in error;
}
