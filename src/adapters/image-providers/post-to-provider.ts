import type { IncomingHttpHeaders } from 'node:http';
import got, { RequestError, TimeoutError } from 'got';
import { ResponseTooLargeError, withResponseSizeLimit } from '../net/response-size-limit.ts';
import { ImageProviderUnavailableError } from './provider-errors.ts';

/** A provider's answer, whatever its status. */
export type ProviderAnswer = { status: number; headers: IncomingHttpHeaders; body: Buffer };

type ProviderRequest = {
  /** Who is asked, at the start of a sentence ("Stability AI"): failures name it. */
  who: string;
  /** Exactly one of them: a form (multipart) or a JSON body. */
  form?: FormData;
  json?: Record<string, unknown>;
  headers: Record<string, string>;
  /** For the whole call. */
  timeoutMs: number;
  /** A longer answer is cut off and counts as an outage. */
  maxAnswerBytes: number;
};

/**
 * One POST to an image provider, answered whatever its status (the provider's own code tells refusals from
 * outages). got's own retries are off: Temporal's retry policy owns retrying. A timeout, an answer too long or no
 * connection is an outage, said in words that never carry the request (got's error holds its options, the key's
 * header included).
 */
export async function postToProvider(url: string, request: ProviderRequest): Promise<ProviderAnswer> {
  const { who, timeoutMs, maxAnswerBytes } = request;
  try {
    const response = await withResponseSizeLimit(maxAnswerBytes, (signal) =>
      got.post(url, {
        ...(request.form ? { body: request.form } : { json: request.json }),
        headers: request.headers,
        responseType: 'buffer',
        throwHttpErrors: false,
        retry: { limit: 0 },
        timeout: { request: timeoutMs },
        signal,
      }),
    );
    const { rawBody } = response;
    return { status: response.statusCode, headers: response.headers, body: Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength) };
  } catch (error) {
    if (error instanceof TimeoutError) throw new ImageProviderUnavailableError(`${who} did not answer within ${timeoutMs / 1000} s`);
    if (error instanceof Error && error.cause instanceof ResponseTooLargeError) {
      throw new ImageProviderUnavailableError(`${who} answered with more than ${maxAnswerBytes / (1024 * 1024)} MB`);
    }
    const code = error instanceof RequestError ? error.code : 'unknown error';
    throw new ImageProviderUnavailableError(`${who} could not be reached (${code})`);
  }
}
