import { channel } from 'node:diagnostics_channel';
import { lookup } from 'node:dns';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, type RequestOptions } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { NormalizedOptions, OptionsInit } from 'got';
import ipaddr from 'ipaddr.js';
import type { Logger } from '../../logger.ts';

// The one guard for requests to URLs our customers give us (brand logos, webhook endpoints): they must never reach
// our own networks (SSRF). Addresses are checked when a connection is made, not when the URL is parsed, so a
// hostname that resolves to a private address, a DNS answer that changes between check and use (rebinding) and a
// redirect to a private host are all refused.

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

/**
 * A customer's URL names a port other than 443 or 80 (the schemes' own). Refused before any lookup or connection:
 * with any port allowed, a customer could probe which ports answer on hosts we reach (a port scanner run by us), as
 * Stripe (443 only in live mode) and most webhook senders refuse (docs/api.md, Customer URLs).
 */
export class DisallowedPortError extends Error {
  readonly code = 'ERR_DISALLOWED_PORT';
  readonly port: string;
  constructor(port: string) {
    super(`port ${port} is not allowed; only 443 and 80 are`);
    this.name = 'DisallowedPortError';
    this.port = port;
  }
}

/** The ports a customer's URL may name (once private networks are not allowed): the schemes' own. */
const allowedPorts: ReadonlySet<string> = new Set(['443', '80']);

function portOf(url: URL): string {
  if (url.port) return url.port;
  return url.protocol === 'http:' || url.protocol === 'ws:' ? '80' : '443';
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

type ConnectionOptions = { host?: string | null; port?: number | string | null; lookup?: LookupFunction };

// Each new connection of a guarded pool judges its port after its host's lookup (literals are judged before the
// request, refuseNonPublicHost); a kept-alive socket was judged when it was made.
function withPortCheck<T extends ConnectionOptions>(options: T, defaultPort: number): T {
  const host = options.host ?? '';
  if (isIP(host)) return options;
  return { ...options, lookup: checkingPort(options.lookup ?? lookup, String(options.port ?? defaultPort)) };
}

class GuardedHttpAgent extends HttpAgent {
  override createConnection(...[options, callback]: Parameters<HttpAgent['createConnection']>): ReturnType<HttpAgent['createConnection']> {
    return super.createConnection(withPortCheck(options as ConnectionOptions, 80), callback);
  }
}

class GuardedHttpsAgent extends HttpsAgent {
  override createConnection(...[options, callback]: Parameters<HttpsAgent['createConnection']>): ReturnType<HttpsAgent['createConnection']> {
    return super.createConnection(withPortCheck(options as ConnectionOptions, 443), callback);
  }
}

// Guarded requests get their own connection pools: a kept-alive socket that an unguarded request opened to a
// private host must never be handed to a guarded one, which would skip the lookup.
const guardedAgents = { http: new GuardedHttpAgent({ keepAlive: true }), https: new GuardedHttpsAgent({ keepAlive: true }) };

// Node connects to an IP-literal host without calling the lookup, so literals are checked before each request
// (the first one and every redirect), and so is the port.
function refuseNonPublicHost(url: URL): void {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!isIP(host)) return;
  if (!isPublicAddress(host)) throw refuse(host, host);
  if (!allowedPorts.has(portOf(url))) throw new DisallowedPortError(portOf(url));
}

/**
 * A host name's port is judged once its addresses are (a name that does not resolve, or resolves to a private address,
 * answers as such whatever its port): `lookup`'s answer, or DisallowedPortError in its place.
 */
function checkingPort(lookup: LookupFunction, port: string): LookupFunction {
  if (allowedPorts.has(port)) return lookup;
  return (hostname, options, callback) =>
    lookup(hostname, options, (error, ...answer) => {
      if (error) callback(error, ...(answer as [string]));
      else callback(new DisallowedPortError(port), '');
    });
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
  return { lookup: checkingPort(guardedLookup(false), portOf(url)), agent: guardedAgents.https };
}
