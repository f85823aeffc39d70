import type { Progress } from 'got';

// Answers from services at the network edge (social platforms, Stability AI) are read into memory, so each read has
// a ceiling: a huge or endless answer is cut off and fails, instead of being buffered until memory runs out. Two
// reads of customers' URLs keep their own loops on purpose: a logo's fetch (src/adapters/net/public-fetch.ts) fails at the
// headers on an error status, before any of its body is read, which got's promise API does only after reading the
// body; and a webhook endpoint's answer (src/adapters/webhook-sender/post-webhook.ts) keeps its first bytes for the delivery log,
// its length never failing a delivery.

/** The answer was longer than we read; the request was aborted at `maxBytes`. */
export class ResponseTooLargeError extends Error {
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes`);
    this.name = 'ResponseTooLargeError';
    this.maxBytes = maxBytes;
  }
}

type ProgressReporting<T> = Promise<T> & { on(event: 'downloadProgress', listener: (progress: Progress) => void): unknown };

/**
 * Sends a got request (which must use the given signal) and aborts it as soon as the answer declares, or has
 * delivered (decompressed), more than `maxBytes`. The request then rejects with got's AbortError, whose cause is a
 * ResponseTooLargeError.
 */
export function withResponseSizeLimit<T>(maxBytes: number, send: (signal: AbortSignal) => ProgressReporting<T>): Promise<T> {
  const controller = new AbortController();
  const request = send(controller.signal);
  request.on('downloadProgress', ({ transferred, total }) => {
    if (transferred > maxBytes || (total ?? 0) > maxBytes) controller.abort(new ResponseTooLargeError(maxBytes));
  });
  return request;
}
