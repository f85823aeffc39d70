import type { RequestHandler } from 'express';

/**
 * On every answer: a browser takes each body as the type we send and never sniffs another (a JSON error quoting
 * the caller's input must not turn into a page that runs it).
 */
export const noSniff: RequestHandler = (_req, res, next) => {
  res.set('X-Content-Type-Options', 'nosniff');
  next();
};

/** On an answer that carries a secret (a new API key): no cache, shared or private, keeps a copy. */
export const noStore: RequestHandler = (_req, res, next) => {
  res.set('Cache-Control', 'no-store');
  next();
};

/** On a page (the docs, the dashboard): no other site may show it in a frame, to trick a click on it. */
export const notFramed: RequestHandler = (_req, res, next) => {
  res.set('X-Frame-Options', 'DENY');
  next();
};
