import type { RequestHandler } from 'express';
import { AppError } from '../../errors/app-error.ts';

// Room for the multipart envelope around the file itself.
const multipartOverhead = 64 * 1024;

/**
 * Refuses an upload whose declared length is over the limit before reading any of it. (Bodies without a declared
 * length are cut off by the multipart parser's own file-size limit instead, never buffered past it.)
 */
export function uploadSizeGuard(maxFileBytes: number): RequestHandler {
  return (req, res, next) => {
    const declared = Number(req.headers['content-length']);
    if (!Number.isFinite(declared) || declared <= maxFileBytes + multipartOverhead) return next();
    res.set('Connection', 'close');
    next(new AppError('payload-too-large', `The file is larger than the limit of ${maxFileBytes} bytes.`));
  };
}
