import type { ClientRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedRequestOptions } from '../net/public-address-policy.ts';
import { RequestDeadlineError, toPublicFetchError } from '../net/public-fetch.ts';

// One delivery attempt to a customer's endpoint. Whatever happens is reported, never thrown: the caller records
// every attempt in the delivery log and decides about retries from the outcome.

export type WebhookPost = {
  url: string;
  /** The JSON text, sent as is (signatures are over these exact bytes). */
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Development only: lets the URL point at loopback and private networks. */
  allowPrivateNetworks: boolean;
};

export type WebhookPostResult = {
  /** The status the endpoint answered; null when no answer came. */
  statusCode: number | null;
  durationMs: number;
  /** Null only for a 2xx answer; otherwise a short sentence for the delivery log. */
  error: string | null;
  /** The first 4 KB of the answer, for the delivery log. */
  responseBody: string;
  /** No attempt to this URL can ever succeed (it is not a usable https URL), so retrying is pointless. */
  permanent: boolean;
};

const maxResponseBytes = 4 * 1024;
const userAgent = 'content-service-webhooks/1';

/** Only a 2xx counts as delivered. */
export function isSuccessStatus(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode < 300;
}

/**
 * Why no attempt to this URL can ever succeed (not a URL, not https), or null: a property of the URL alone, so a
 * logged attempt's permanence can be told again from its webhook.
 */
export function unusableUrlReason(url: string): string | null {
  if (!URL.canParse(url)) return 'webhook URL is not a valid URL; the event is not retried';
  if (new URL(url).protocol !== 'https:') return 'webhook URL must use https; the event is not retried';
  return null;
}

function statusError(statusCode: number): string | null {
  if (isSuccessStatus(statusCode)) return null;
  // Following a redirect would send the signed body to a URL the customer never registered.
  if (statusCode >= 300 && statusCode < 400) return `webhook server answered ${statusCode} (redirects are not followed)`;
  return `webhook server answered ${statusCode}`;
}

export async function postWebhook(input: WebhookPost): Promise<WebhookPostResult> {
  const started = performance.now();
  const result = (statusCode: number | null, error: string | null, responseBody = '', permanent = false): WebhookPostResult => ({
    statusCode,
    durationMs: Math.round(performance.now() - started),
    error,
    responseBody,
    permanent,
  });
  const unusable = unusableUrlReason(input.url);
  if (unusable) return result(null, unusable, '', true);

  // node:https rather than got: an event's round sends to every webhook at once, and got's own work per request
  // (options, hooks, timers) cost about as much CPU as the request itself. The same SSRF guard applies
  // (guardedRequestOptions); redirects are never followed by node:https.
  const body = Buffer.from(input.body, 'utf8');
  let request: ClientRequest | undefined;
  // One budget for the whole attempt, answer and body included.
  const deadline = setTimeout(() => request?.destroy(new RequestDeadlineError(input.timeoutMs)), input.timeoutMs);
  try {
    let response: IncomingMessage;
    try {
      response = await new Promise<IncomingMessage>((resolveResponse, rejectResponse) => {
        const url = new URL(input.url);
        request = httpsRequest(url, {
          ...guardedRequestOptions(url, input.allowPrivateNetworks),
          method: 'POST',
          headers: { ...input.headers, 'content-type': 'application/json', 'content-length': body.length, 'user-agent': userAgent },
        });
        request.once('response', resolveResponse);
        request.once('error', rejectResponse);
        request.end(body);
      });
    } catch (error) {
      return result(null, toPublicFetchError(error, { what: 'webhook', timeoutMs: input.timeoutMs }).reason);
    }
    const statusCode = response.statusCode ?? 0;
    return result(statusCode, statusError(statusCode), await readBeginning(response));
  } finally {
    clearTimeout(deadline);
  }
}

/**
 * The first 4 KB of the answer, for the delivery log. The endpoint has answered: a body that stalls or breaks off
 * does not change its status, and the log keeps what arrived. A body read to its end leaves the connection to be
 * used again; one cut short closes it.
 */
async function readBeginning(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= maxResponseBytes) break;
    }
  } catch {
    // See above: what arrived is kept.
  }
  return Buffer.concat(chunks).subarray(0, maxResponseBytes).toString('utf8');
}
