import type { RequestHandler } from 'express';
import { AppError } from '../../errors/app-error.ts';

type ValidatedRequest = { openapi?: { schema?: { operationId?: string } } };

/**
 * Reached by a request the validator matched to an operation of openapi.yaml that no route serves yet: the
 * contract is published ahead of the features, and those operations answer 501 with the standard problem body.
 */
export const notImplemented: RequestHandler = (req, _res, next) => {
  const operationId = (req as ValidatedRequest).openapi?.schema?.operationId;
  if (!operationId) return next();
  next(new AppError('not-implemented', `${operationId} (${req.method} ${req.originalUrl.split('?')[0]}) is not available yet.`));
};
