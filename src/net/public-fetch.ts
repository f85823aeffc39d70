import { channel } from 'node:diagnostics_channel';
import { lookup } from 'node:dns';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, type RequestOptions } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import got, { HTTPError, MaxRedirectsError, RequestError, TimeoutError, type NormalizedOptions, type OptionsInit, type Response } from 'got';
import ipaddr from 'ipaddr.js';
import type { Logger } from '../logger.ts';
import { ResponseTooLargeError } from './response-size-limit.ts';

// The one guard for requests to URLs our customers give us (brand logos, webhook endpoints): they must never reach
// our own networks (SSRF). Addresses are checked when a connection is made, not when the URL is parsed, so a
// hostname that resolves to a private address, a DNS answer that changes between check and use (rebinding) and a
// redirect to a private host are all refused.

/** A request to a customer-given URL failed; `reason` is a short sentence the customer can act on. */
export class PublicFetchError extends Error {
  readonly reason: string;
  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'PublicFetchError';
    this.reason = reason;
  }
}

/** A host resolved to (or is) an address outside the public internet; raised while connecting. */
export class NonPublicAddressError extends Error {
  readonly code = 'ERR_NON_PUBLIC_ADDRESS';
  readonly hostname: string;
  readonly address: string;
  constructor(hostname: string, address: string) {
    super(`${hostname} resolves to a non-public address (${address})`);
    this.name = 'NonPublicAddressError';
    this.hostname = hostname;
    this.address = address;
  }
}

// The reasons callers see (API responses, render notes, the webhook delivery log) never name a refused address: what
// our resolver answers for a customer's host name can map our own network. The address goes to the logs only,
// published here and logged by every process (logRefusedAddresses).
const refusedAddresses = channel('content-service:net:refused-address');

function refuse(hostname: string, address: string): NonPublicAddressError {
  refusedAddresses.publish({ hostname, address });
  return new NonPublicAddressError(hostname, address);
}

/** Logs each refused address (with its host name) as a warning; returns the unsubscribe. */
export function logRefusedAddresses(logger: Logger): () => void {
  const log = (message: unknown) => logger.warn(message, 'refused a connection to a non-public address');
  refusedAddresses.subscribe(log);
  return () => refusedAddresses.unsubscribe(log);
}

// IANA allocates public IPv6 unicast from 2000::/3 only; anything else that ipaddr.js calls `unicast` (such as the
// deprecated IPv4-compatible ::a.b.c.d) is not an address a customer's server legitimately has.
const globalUnicastV6: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];

/**
 * True only for addresses on the public internet. Everything ipaddr.js puts in a special range is refused: loopback,
 * private, link-local (cloud metadata 169.254.169.254), CGNAT (100.100.100.200), unique-local (fd00:ec2::254),
 * multicast, unspecified, broadcast, reserved, NAT64 and 6to4 (which embed IPv4 addresses); IPv4-mapped IPv6
 * addresses are judged as the IPv4 address they carry.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  if (parsed.range() !== 'unicast') return false;
  return parsed instanceof ipaddr.IPv4 || parsed.match(globalUnicastV6);
}

/** A `dns.lookup` for got's `dnsLookup` option that refuses hosts with any non-public address. */
export function guardedLookup(allowPrivateNetworks: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, '');
        return;
      }
      const refused = allowPrivateNetworks ? undefined : addresses.find(({ address }) => !isPublicAddress(address));
      if (refused) {
        callback(refuse(hostname, refused.address), '');
        return;
      }
      const [first] = addresses;
      if (options.all) callback(null, addresses);
      else if (first) callback(null, first.address, first.family);
      else callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
    });
  };
}

// Guarded requests get their own connection pools: a kept-alive socket that an unguarded request opened to a
// private host must never be handed to a guarded one, which would skip the lookup.
const guardedAgents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

// Node connects to an IP-literal host without calling the lookup, so literals are checked before each request
// (the first one and every redirect).
function refuseNonPublicHost(url: URL): void {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) && !isPublicAddress(host)) throw refuse(host, host);
}

function refuseNonPublicLiteral(options: NormalizedOptions): void {
  if (options.url instanceof URL) refuseNonPublicHost(options.url);
}

/**
 * got options that keep a request, and every redirect it follows, on the public internet; none when private
 * networks are allowed (development). Spread them into got's options and keep `hooks.beforeRequest` when adding
 * hooks of your own.
 */
export function addressPolicy(allowPrivateNetworks: boolean): Pick<OptionsInit, 'dnsLookup' | 'agent' | 'hooks'> {
  if (allowPrivateNetworks) return {};
  return { dnsLookup: guardedLookup(false), agent: guardedAgents, hooks: { beforeRequest: [refuseNonPublicLiteral] } };
}

/**
 * The same guard for a request made with `node:https` itself (webhook deliveries, where got's own work per request
 * cost about as much CPU as the request): the guarded lookup and connection pool, and the literal check, which throws
 * NonPublicAddressError here, before anything is sent. Nothing when private networks are allowed (development).
 */
export function guardedRequestOptions(url: URL, allowPrivateNetworks: boolean): Pick<RequestOptions, 'lookup' | 'agent'> {
  if (allowPrivateNetworks) return {};
  refuseNonPublicHost(url);
  return { lookup: guardedLookup(false), agent: guardedAgents.https };
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
  for (let current = error; current instanceof Error; current = current.cause) {
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

  const refused = causeOfType(error, NonPublicAddressError);
  if (refused) {
    const redirected = error instanceof RequestError && (error.request?.redirectUrls.length ?? 0) > 0;
    if (redirected) return reason(`${words.server} redirected to a private address`);
    if (refused.hostname === refused.address) return reason(`${words.host} is a private address`);
    return reason(`${words.host} resolves to a private address`);
  }
  const tooLarge = causeOfType(error, ResponseTooLargeError);
  if (tooLarge) return reason(`${words.server} answered with more than ${formatBytes(tooLarge.maxBytes)}`);
  if (error instanceof TimeoutError || causeOfType(error, RequestDeadlineError)) {
    return reason(`${words.server} did not answer within ${Number((context.timeoutMs / 1000).toFixed(1))} s`);
  }
  if (error instanceof HTTPError) return reason(`${words.server} answered ${error.response.statusCode}`);
  if (error instanceof MaxRedirectsError) return reason(`${words.server} redirected more than ${error.options.maxRedirects} times`);

  // got's RequestError, or Node's own (system errors and TLS errors carry their code the same way).
  const given = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  const code = typeof given === 'string' ? given : undefined;
  if (code === 'ENOTFOUND') return reason(`${words.host} does not exist`);
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
