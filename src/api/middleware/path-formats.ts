import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { openApiFormats } from '../../common/validation/formats.ts';

/**
 * Checks a route's path parameters against the formats of openapi.yaml, for the few routes outside the contract (the
 * dashboard's own API), with the validator's own error: the same rule, and the same problem body, as a malformed
 * parameter of the public API.
 */
export function pathFormats<Name extends string>(formats: Record<Name, keyof typeof openApiFormats>): RequestHandler<Record<Name, string>> {
  return (req, _res, next) => {
    const errors = (Object.entries(formats) as Array<[Name, keyof typeof openApiFormats]>)
      .filter(([name, format]) => !openApiFormats[format].validate(req.params[name]))
      .map(([name, format]) => ({ path: `/params/${name}`, message: `must match format "${format}"` }));
    next(errors.length > 0 ? new OpenApiValidator.error.BadRequest({ path: errors[0]!.path, message: errors[0]!.message, errors }) : undefined);
  };
}
