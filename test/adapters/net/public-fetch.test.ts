import diagnosticsChannel from 'node:diagnostics_channel';
import { lookup } from 'node:dns';
import { Agent as HttpAgent, createServer as createHttpServer, type RequestListener } from 'node:http';
import type { AddressInfo, LookupFunction, Socket } from 'node:net';
import got from 'got';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addressPolicy, guardedLookup, isPublicAddress, logRefusedAddresses } from '../../../src/adapters/net/public-address-policy.ts';
import { fetchPublicResource, PublicFetchError, toPublicFetchError } from '../../../src/adapters/net/public-fetch.ts';
import { closedPort } from '../../fakes/closed-port.ts';
import { startConnectionCounter, type ConnectionCounter } from '../../fakes/connection-counter.ts';
import { startHttpsServer, startSelfSignedHttpsServer, type HttpsServer } from '../../fakes/https-server.ts';
import { failureOf } from '../../support/failure-of.ts';
import { makeImage } from '../../support/images.ts';

const logo = { maxBytes: 64 * 1024, timeoutMs: 5_000, what: 'logo' };

let png: Buffer;
let https: HttpsServer;
let counter: ConnectionCounter;
let endlessBodyClosed: Promise<void>;
let closeEndlessBody: () => void;
let silentRequestClosed: Promise<void>;
let closeSilentRequest: () => void;
/** What the log received about refused addresses: the only place they are named. */
const refusals: Array<Record<string, unknown>> = [];
const stopLoggingRefusals = logRefusedAddresses(
  pino({ level: 'warn' }, { write: (line: string) => refusals.push(JSON.parse(line) as Record<string, unknown>) }),
);

const routes: RequestListener = (request, response) => {
  const path = request.url ?? '/';
  const redirect = /^\/redirect\/(\d+)$/.exec(path);
  if (path === '/logo.png') {
    response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
  } else if (redirect) {
    const left = Number(redirect[1]);
    response.writeHead(302, { location: left > 1 ? `/redirect/${left - 1}` : '/logo.png' }).end();
  } else if (path === '/to-http') {
    response.writeHead(302, { location: `http://127.0.0.1:${counter.port}/logo.png` }).end();
  } else if (path === '/declared-large') {
    // Declares more than the limit, sends a little and stalls: only the declared length can fail this fast.
    response.writeHead(200, { 'content-type': 'image/png', 'content-length': 2 * logo.maxBytes });
    response.write(Buffer.alloc(512));
  } else if (path === '/endless') {
    // Chunked and never ending: only counting the bytes read can stop this.
    response.writeHead(200, { 'content-type': 'image/png' });
    const writer = setInterval(() => response.write(Buffer.alloc(16 * 1024)), 5);
    response.once('close', () => {
      clearInterval(writer);
      closeEndlessBody();
    });
  } else if (path === '/silent') {
    // Never answers.
    response.once('close', () => closeSilentRequest());
  } else {
    response.writeHead(404).end();
  }
};

beforeAll(async () => {
  png = await makeImage('png');
  endlessBodyClosed = new Promise((resolveClosed) => (closeEndlessBody = resolveClosed));
  silentRequestClosed = new Promise((resolveClosed) => (closeSilentRequest = resolveClosed));
  https = await startHttpsServer(routes);
  counter = await startConnectionCounter();
});
beforeEach(() => counter.reset());
afterAll(async () => {
  stopLoggingRefusals();
  await https?.close();
  await counter?.close();
});

/** The client sockets `action` opens (Node announces each on the `net.client.socket` channel), with its result. */
function socketsOpenedDuring<T>(action: () => Promise<T>): { result: Promise<T>; opened: string[] } {
  const opened: string[] = [];
  const record = (message: unknown) => opened.push(String((message as { socket: Socket }).socket.remoteAddress ?? 'connecting'));
  diagnosticsChannel.subscribe('net.client.socket', record);
  const result = action().finally(() => diagnosticsChannel.unsubscribe('net.client.socket', record));
  return { result, opened };
}

describe('isPublicAddress', () => {
  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001:81c::200e', '::ffff:8.8.8.8'])(
    'when the address is %s, then it is public',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.1', 'loopback'],
    ['10.0.0.5', 'private 10/8'],
    ['172.16.0.1', 'private 172.16/12'],
    ['172.31.255.255', 'private 172.16/12'],
    ['192.168.1.1', 'private 192.168/16'],
    ['169.254.169.254', 'cloud metadata (link-local)'],
    ['169.254.0.1', 'link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['100.100.100.200', 'cloud metadata (CGNAT)'],
    ['192.0.0.192', 'cloud metadata (IETF protocol assignments)'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', '0.0.0.0/8'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['198.18.0.1', 'benchmarking'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fe80::1', 'IPv6 link-local'],
    ['fc00::1', 'IPv6 unique-local'],
    ['fd00:ec2::254', 'cloud metadata (IPv6 unique-local)'],
    ['ff02::1', 'IPv6 multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:10.0.0.5', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['64:ff9b::a00:5', 'NAT64 of a private address'],
    ['2002:a00:5::', '6to4 of a private address'],
    ['::7f00:1', 'IPv4-compatible loopback'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['not-an-address', 'not an address'],
    ['', 'empty'],
  ])('when the address is %s (%s), then it is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe('fetchPublicResource', () => {
  it('when private networks are allowed, then it fetches from the loopback HTTPS server with TLS verified', async () => {
    const resource = await fetchPublicResource(`${https.url}/logo.png`, { ...logo, allowPrivateNetworks: true });
    expect(resource.body.equals(png)).toBe(true);
    expect(resource.contentType).toBe('image/png');

    const byName = await fetchPublicResource(`${https.url.replace('127.0.0.1', 'localhost')}/logo.png`, { ...logo, allowPrivateNetworks: true });
    expect(byName.body.equals(png)).toBe(true);
  });

  it('when private networks are not allowed, then the loopback server is refused without connecting', async () => {
    const failure = await failureOf(
      fetchPublicResource(`https://127.0.0.1:${counter.port}/logo.png`, { ...logo, allowPrivateNetworks: false }),
      PublicFetchError,
    );
    expect(failure.reason).toBe('logo host is a private address');
    expect(counter.connections()).toBe(0);
  });

  it('when a hostname resolves to loopback (localhost) and that is not allowed, then it is refused without connecting and only the log names the address', async () => {
    const failure = await failureOf(
      fetchPublicResource(`https://localhost:${counter.port}/logo.png`, { ...logo, allowPrivateNetworks: false }),
      PublicFetchError,
    );
    expect(failure.reason).toBe('logo host does not resolve to a public address');
    expect(refusals.at(-1)).toMatchObject({ hostname: 'localhost', address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) });
    expect(counter.connections()).toBe(0);
  });

  it('when an unguarded request left a kept-alive connection to loopback, then a guarded request does not reuse it', async () => {
    const localhost = https.url.replace('127.0.0.1', 'localhost');
    await fetchPublicResource(`${localhost}/logo.png`, { ...logo, allowPrivateNetworks: true });
    const failure = await failureOf(fetchPublicResource(`${localhost}/logo.png`, { ...logo, allowPrivateNetworks: false }), PublicFetchError);
    expect(failure.reason).toMatch(/^logo host does not resolve to a public address/);
  });

  it('when the URL uses http, then it is refused before anything is sent, even with private networks allowed', async () => {
    const failure = await failureOf(
      fetchPublicResource(`http://127.0.0.1:${counter.port}/logo.png`, { ...logo, allowPrivateNetworks: true }),
      PublicFetchError,
    );
    expect(failure.reason).toBe('logo URL must use https');
    expect(counter.connections()).toBe(0);
  });

  it.each([
    ['https://10.0.0.5/logo.png', '10.0.0.5'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['https://100.100.100.200/latest/meta-data/', '100.100.100.200'],
    ['https://[fd00:ec2::254]/latest/meta-data/', 'fd00:ec2::254'],
    ['https://[::1]/logo.png', '::1'],
    ['https://[fe80::1]/logo.png', 'fe80::1'],
    ['https://[::ffff:127.0.0.1]/logo.png', '::ffff:7f00:1'],
    ['https://0.0.0.0/logo.png', '0.0.0.0'],
    ['https://2130706433/logo.png', '127.0.0.1'],
  ])('when the URL is the literal address %s, then it is refused without a connection attempt and only the log names it', async (url, address) => {
    const sockets = socketsOpenedDuring(() => failureOf(fetchPublicResource(url, { ...logo, allowPrivateNetworks: false }), PublicFetchError));
    const failure = await sockets.result;
    expect(failure.reason).toBe('logo host is a private address');
    expect(refusals.at(-1)).toMatchObject({ hostname: address, address, msg: 'refused a connection to a non-public address' });
    expect(sockets.opened).toEqual([]);
  });

  it('when the server redirects within the limit, then the redirect is followed', async () => {
    const resource = await fetchPublicResource(`${https.url}/redirect/3`, { ...logo, allowPrivateNetworks: true });
    expect(resource.body.equals(png)).toBe(true);
  });

  it('when the server redirects more than 3 times, then it fails', async () => {
    const failure = await failureOf(fetchPublicResource(`${https.url}/redirect/4`, { ...logo, allowPrivateNetworks: true }), PublicFetchError);
    expect(failure.reason).toBe('logo server redirected more than 3 times');
  });

  it('when the server redirects to an http URL, then the redirect is refused without connecting', async () => {
    const failure = await failureOf(fetchPublicResource(`${https.url}/to-http`, { ...logo, allowPrivateNetworks: true }), PublicFetchError);
    expect(failure.reason).toBe('logo server redirected to a URL that is not https');
    expect(counter.connections()).toBe(0);
  });

  it('when Content-Length is over the limit, then it fails at once without waiting for the body', async () => {
    const failure = await failureOf(fetchPublicResource(`${https.url}/declared-large`, { ...logo, allowPrivateNetworks: true }), PublicFetchError);
    expect(failure.reason).toBe('logo is larger than 64 KB');
  });

  it('when an undeclared body grows past the limit, then it stops reading and fails', async () => {
    const failure = await failureOf(fetchPublicResource(`${https.url}/endless`, { ...logo, allowPrivateNetworks: true }), PublicFetchError);
    expect(failure.reason).toBe('logo is larger than 64 KB');
    await endlessBodyClosed;
  });

  it('when the server does not answer in time, then it fails with the timeout and hangs up', async () => {
    const failure = await failureOf(fetchPublicResource(`${https.url}/silent`, { ...logo, timeoutMs: 300, allowPrivateNetworks: true }), PublicFetchError);
    expect(failure.reason).toBe('logo server did not answer within 0.3 s');
    // The request the server never answered was closed by the client giving up, not left open.
    await silentRequestClosed;
  });

  it('when the server answers an error status, then the reason names it', async () => {
    const failure = await failureOf(fetchPublicResource(`${https.url}/missing.png`, { ...logo, allowPrivateNetworks: true }), PublicFetchError);
    expect(failure.reason).toBe('logo server answered 404');
  });

  it('when the host does not exist, then the reason is the one a host on a private address gets, so our resolver tells nothing', async () => {
    // .invalid never resolves (RFC 6761).
    const failure = await failureOf(fetchPublicResource('https://logo.example.invalid/logo.png', { ...logo, allowPrivateNetworks: false }), PublicFetchError);
    const privateName = await failureOf(fetchPublicResource('https://localhost/logo.png', { ...logo, allowPrivateNetworks: false }), PublicFetchError);
    expect(failure.reason).toBe('logo host does not resolve to a public address');
    expect(privateName.reason).toBe(failure.reason);
  });

  it('when a public address names a port other than 443 and 80, then it is refused before connecting', async () => {
    // A documentation address (RFC 5737) is not public; 1.1.1.1 is, and nothing connects to it.
    const failure = await failureOf(fetchPublicResource('https://1.1.1.1:8443/logo.png', { ...logo, allowPrivateNetworks: false }), PublicFetchError);
    expect(failure.reason).toBe('logo URL names port 8443; only 443 and 80 are allowed');
  });

  it('when nothing listens on the port, then the reason says the connection was refused', async () => {
    const failure = await failureOf(
      fetchPublicResource(`https://127.0.0.1:${await closedPort()}/logo.png`, { ...logo, allowPrivateNetworks: true }),
      PublicFetchError,
    );
    expect(failure.reason).toBe('logo server refused the connection');
  });

  it('when the server has an untrusted self-signed certificate, then TLS verification fails', async () => {
    const server = await startSelfSignedHttpsServer((_request, response) => {
      response.end(png);
    });
    try {
      const failure = await failureOf(fetchPublicResource(`${server.url}/logo.png`, { ...logo, allowPrivateNetworks: true }), PublicFetchError);
      expect(failure.reason).toBe("logo server's TLS certificate could not be verified (DEPTH_ZERO_SELF_SIGNED_CERT)");
    } finally {
      await server.close();
    }
  });

  it('when no `what` is given, then the reasons speak of "the URL" generically', async () => {
    const insecure = await failureOf(
      fetchPublicResource('http://example.com/logo.png', { ...logo, what: undefined, allowPrivateNetworks: false }),
      PublicFetchError,
    );
    expect(insecure.reason).toBe('the URL must use https');
    const invalid = await failureOf(fetchPublicResource('not a url', { ...logo, what: undefined, allowPrivateNetworks: false }), PublicFetchError);
    expect(invalid.reason).toBe('the URL is not a valid URL');
  });
});

describe('addressPolicy', () => {
  // No public address reaches this machine, so DNS (the network edge) is faked for one name: `cdn.example` is a
  // "public" host that answers on loopback. Every other name goes through the real guarded lookup.
  const publicCdnDns: LookupFunction = (hostname, options, callback) => {
    if (hostname === 'cdn.example') lookup('127.0.0.1', options, callback);
    else guardedLookup(false)(hostname, options, callback);
  };

  let cdnPort: number;
  let redirectTo = '';
  const cdn = createHttpServer((_request, response) => {
    response.writeHead(302, { location: redirectTo }).end();
  });
  beforeAll(async () => {
    await new Promise<void>((resolveListen) => cdn.listen(0, '127.0.0.1', resolveListen));
    cdnPort = (cdn.address() as AddressInfo).port;
  });
  afterAll(() => {
    cdn.closeAllConnections();
    cdn.close();
  });

  it.each([
    ['a literal private address', () => `http://127.0.0.1:${counter.port}/hook`, '127.0.0.1'],
    ['a host resolving to loopback', () => `http://localhost:${counter.port}/hook`, 'localhost'],
  ])('when a public host redirects to %s, then the redirect is refused without connecting', async (_case, target, hostname) => {
    redirectTo = target();
    // A plain pool: the CDN's test port is not one a customer's URL may name (the guarded pools judge ports).
    const policy = { ...addressPolicy(false), agent: { http: new HttpAgent() } };
    const request = got(`http://cdn.example:${cdnPort}/logo.png`, { ...policy, dnsLookup: publicCdnDns, retry: { limit: 0 } });
    const error = await failureOf(request);
    expect(toPublicFetchError(error, { what: 'logo', timeoutMs: 5_000 }).reason).toBe('logo server redirected to a host without a public address');
    expect(refusals.at(-1)).toMatchObject({ hostname });
    expect(counter.connections()).toBe(0);
  });

  it('when a public host names a port other than 443 and 80, then it is refused after its lookup, without connecting', async () => {
    let connections = 0;
    const count = () => connections++;
    cdn.on('connection', count);
    const request = got(`http://cdn.example:${cdnPort}/logo.png`, { ...addressPolicy(false), dnsLookup: publicCdnDns, retry: { limit: 0 } });
    const error = await failureOf(request);
    cdn.off('connection', count);
    expect(toPublicFetchError(error, { what: 'logo', timeoutMs: 5_000 }).reason).toBe(`logo URL names port ${cdnPort}; only 443 and 80 are allowed`);
    expect(connections).toBe(0);
  });

  it('when private networks are allowed, then the policy adds nothing to the request', () => {
    expect(addressPolicy(true)).toEqual({});
  });
});
