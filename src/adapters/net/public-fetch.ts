import got, { HTTPError, MaxRedirectsError, RequestError, TimeoutError, type Response } from 'got';
import { addressPolicy, DisallowedPortError, NonPublicAddressError } from './public-address-policy.ts';
import { ResponseTooLargeError } from './response-size-limit.ts';
import { causesOf } from '../../common/errors/caught.ts';

// The HTTP side of requests to URLs our customers give us, which public-address-policy.ts keeps on the public
// internet: a logo's fetch within its size and time budget, and the reason, worded for the customer, that such a
// request failed (a logo, a webhook endpoint, a self-hosted social server).

/** A request to a customer-given URL failed; `reason` is a short sentence the customer can act on. */
export class PublicFetchError extends Error {
  readonly reason: string;
  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'PublicFetchError';
    this.reason = reason;
  }
}

/** A request made with `node:https` outlasted its time budget (got raises its own TimeoutError). */
export class RequestDeadlineError extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'RequestDeadlineError';
  }
}

type Wording = { url: string; host: string; body: string; server: string };

function wordingFor(what: string | undefined): Wording {
  if (!what) return { url: 'the URL', host: 'the host', body: 'the response', server: 'the server' };
  return { url: `${what} URL`, host: `${what} host`, body: what, server: `${what} server` };
}

function formatBytes(bytes: number): string {
  const round = (value: number) => Number(value.toFixed(1));
  if (bytes >= 1024 * 1024) return `${round(bytes / (1024 * 1024))} MB`;
  if (bytes >= 1024) return `${round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

function causeOfType<T extends Error>(error: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  for (const current of causesOf(error)) {
    if (current instanceof type) return current;
  }
  return undefined;
}

/** Turns whatever a guarded request (got's or node:https's) threw into a PublicFetchError with a reason worded for `what`. */
export function toPublicFetchError(error: unknown, context: { what?: string; timeoutMs: number }): PublicFetchError {
  const known = causeOfType(error, PublicFetchError);
  if (known) return known;
  const words = wordingFor(context.what);
  const reason = (text: string) => new PublicFetchError(text, { cause: error });

  // A name that does not resolve and one that resolves to a private address get the same reason: told apart, they
  // would let a customer ask our resolver which names exist inside our network. A literal address says nothing new.
  const redirected = error instanceof RequestError && (error.request?.redirectUrls.length ?? 0) > 0;
  const refused = causeOfType(error, NonPublicAddressError);
  const given = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  const code = typeof given === 'string' ? given : undefined;
  if (refused || code === 'ENOTFOUND') {
    if (redirected) return reason(`${words.server} redirected to a host without a public address`);
    if (refused && refused.hostname === refused.address) return reason(`${words.host} is a private address`);
    return reason(`${words.host} does not resolve to a public address`);
  }
  const port = causeOfType(error, DisallowedPortError);
  if (port) return reason(`${redirected ? `${words.server} redirected to` : `${words.url} names`} port ${port.port}; only 443 and 80 are allowed`);
  const tooLarge = causeOfType(error, ResponseTooLargeError);
  if (tooLarge) return reason(`${words.server} answered with more than ${formatBytes(tooLarge.maxBytes)}`);
  if (error instanceof TimeoutError || causeOfType(error, RequestDeadlineError)) {
    return reason(`${words.server} did not answer within ${Number((context.timeoutMs / 1000).toFixed(1))} s`);
  }
  if (error instanceof HTTPError) return reason(`${words.server} answered ${error.response.statusCode}`);
  if (error instanceof MaxRedirectsError) return reason(`${words.server} redirected more than ${error.options.maxRedirects} times`);

  // got's RequestError, or Node's own (system errors and TLS errors carry their code the same way).
  if (code === 'ECONNREFUSED') return reason(`${words.server} refused the connection`);
  if (code === 'ECONNRESET') return reason(`${words.server} closed the connection`);
  if (code && /CERT|SIGNATURE|^ERR_TLS_|^ERR_SSL_/.test(code)) {
    return reason(`${words.server}'s TLS certificate could not be verified (${code})`);
  }
  return reason(`${words.server} could not be reached${code ? ` (${code})` : ''}`);
}

export type PublicFetchOptions = {
  maxBytes: number;
  timeoutMs: number;
  /** Development only: lets the URL point at loopback and private networks. */
  allowPrivateNetworks: boolean;
  /** What is fetched, for the reasons: 'logo' gives "logo URL must use https"; without it "the URL ...". */
  what?: string;
};

export type PublicResource = { body: Buffer; contentType: string | undefined };

const maxRedirects = 3;

/** GETs a customer-given https URL on the public internet, verifying TLS, within a size and time budget. */
export async function fetchPublicResource(url: string, options: PublicFetchOptions): Promise<PublicResource> {
  const words = wordingFor(options.what);
  if (!URL.canParse(url)) throw new PublicFetchError(`${words.url} is not a valid URL`);
  if (new URL(url).protocol !== 'https:') throw new PublicFetchError(`${words.url} must use https`);
  const tooLarge = () => new PublicFetchError(`${words.body} is larger than ${formatBytes(options.maxBytes)}`);
  const policy = addressPolicy(options.allowPrivateNetworks);

  const stream = got.stream(url, {
    ...policy,
    hooks: {
      ...policy.hooks,
      beforeRedirect: [
        (next) => {
          if (next.url instanceof URL && next.url.protocol !== 'https:') {
            throw new PublicFetchError(`${words.server} redirected to a URL that is not https`);
          }
        },
      ],
    },
    maxRedirects,
    timeout: { request: options.timeoutMs },
    retry: { limit: 0 },
  });
  let contentType: string | undefined;
  stream.once('response', (response: Response) => {
    contentType = response.headers['content-type'];
    if (Number(response.headers['content-length']) > options.maxBytes) stream.destroy(tooLarge());
  });

  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > options.maxBytes) throw tooLarge();
      chunks.push(chunk);
    }
    return { body: Buffer.concat(chunks, size), contentType };
  } catch (error) {
    throw toPublicFetchError(error, options);
  }
}
