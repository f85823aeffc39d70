import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// A real atproto Personal Data Server (the reference implementation, from @atproto/dev-env) for one test file or
// one benchmark, behind an HTTPS proxy with the run's dev certificate: the connector under test speaks HTTPS with
// certificate checks on, as in production, and the proxy counts the calls it passes on (how many sessions were
// created is what the tests assert). The PDS lives in a child process for as short as its user needs it: it was
// once seen dying with a native assertion after idle minutes.

export type PdsAccount = { did: string; handle: string; password: string; appPassword: string };

export type AtprotoPds = {
  /** The proxy's https URL: the service URL of the accounts. */
  url: string;
  /** Calls of `nsid` (e.g. `com.atproto.server.createSession`) that came through the proxy since the start or the last `resetCounts`. */
  count(nsid: string): number;
  resetCounts(): void;
  /**
   * The next `count` calls of `nsid` reach the PDS, which acts on them, and their answers are dropped (an answer lost
   * after the write): the proxy closes the connection (`reset`), or keeps it open and silent until the client gives
   * up (`silence`, for client timeouts).
   */
  dropAnswers(nsid: string, count: number, how?: 'reset' | 'silence'): void;
  /** Creates an account on the PDS (handle under `.test`) with an app password, past the proxy. */
  createAccount(handle: string): Promise<PdsAccount>;
  /** Reads an XRPC query past the proxy: `com.atproto.repo.getRecord`, `com.atproto.sync.getBlob`... */
  query(nsid: string, params: Record<string, string>): Promise<Response>;
  /** Calls an XRPC procedure past the proxy with `token` as the bearer. */
  procedure(nsid: string, token: string, body?: object): Promise<Response>;
  close(): Promise<void>;
};

const processEntry = fileURLToPath(new URL('./atproto-pds-process.ts', import.meta.url));

async function startChild(dataDir: string): Promise<{ child: ChildProcess; pdsUrl: string }> {
  const child = fork(processEntry, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: { ...process.env, ATPROTO_PDS_DATA_DIR: dataDir } });
  const ready = new Promise<{ pdsUrl: string }>((resolveReady, rejectReady) => {
    child.once('message', (message) => resolveReady(message as { pdsUrl: string }));
    child.once('exit', (code, signal) => rejectReady(new Error(`the atproto PDS exited before it was ready (${signal ?? code})`)));
  });
  return { child, ...(await ready) };
}

/** Starts the PDS and its proxy; `tls` is the dev certificate the proxy serves (trusted by the caller's process). */
export async function startAtprotoPds(tls: { certPath: string; keyPath: string }): Promise<AtprotoPds> {
  const dataDir = mkdtempSync(join(tmpdir(), 'atproto-pds-'));
  const { child, pdsUrl } = await startChild(dataDir).catch((error: unknown) => {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  const upstream = new URL(pdsUrl);
  const counts = new Map<string, number>();
  const drops = new Map<string, { count: number; how: 'reset' | 'silence' }>();

  const proxy = createServer({ cert: readFileSync(tls.certPath), key: readFileSync(tls.keyPath) }, (incoming, outgoing) => {
    const nsid = /^\/xrpc\/([^/?]+)/.exec(incoming.url ?? '')?.[1] ?? '';
    counts.set(nsid, (counts.get(nsid) ?? 0) + 1);
    const drop = drops.get(nsid);
    const dropping = drop && drop.count > 0 ? drop.how : undefined;
    if (drop && dropping) drop.count -= 1;
    const forwarded = httpRequest(
      // A connection per request: the PDS closes idle keep-alive sockets after 5 s, and a request sent on one just as it
      // closes fails as a reset (seen as a flaky "server closed the connection").
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: upstream.host },
        agent: false,
      },
      (answer) => {
        if (dropping) {
          answer.resume();
          if (dropping === 'reset') answer.once('end', () => outgoing.destroy());
          return;
        }
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  // Clients keep their sockets to the proxy; it must not be the side that closes them between a test's requests.
  proxy.keepAliveTimeout = 120_000;
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const { port } = proxy.address() as AddressInfo;

  const xrpc = (nsid: string) => new URL(`/xrpc/${nsid}`, upstream);
  async function procedure(nsid: string, token: string, body?: object): Promise<Response> {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    if (body) headers['content-type'] = 'application/json';
    return fetch(xrpc(nsid), { method: 'POST', headers, ...(body ? { body: JSON.stringify(body) } : {}) });
  }
  async function json<T>(answer: Promise<Response>): Promise<T> {
    const response = await answer;
    if (!response.ok) throw new Error(`the PDS answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  }

  return {
    url: `https://127.0.0.1:${port}`,
    count: (nsid) => counts.get(nsid) ?? 0,
    resetCounts: () => counts.clear(),
    dropAnswers: (nsid, count, how = 'reset') => drops.set(nsid, { count, how }),
    async createAccount(handle) {
      const password = `pw-${handle}`;
      const account = await json<{ did: string; accessJwt: string }>(
        procedure('com.atproto.server.createAccount', '', { handle, email: `${handle}@example.com`, password }),
      );
      const { password: appPassword } = await json<{ password: string }>(
        procedure('com.atproto.server.createAppPassword', account.accessJwt, { name: 'content-service' }),
      );
      return { did: account.did, handle, password, appPassword };
    },
    query(nsid, params) {
      const url = xrpc(nsid);
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      return fetch(url);
    },
    procedure,
    async close() {
      await new Promise<void>((resolveClose) => {
        proxy.close(() => resolveClose());
        proxy.closeAllConnections();
      });
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.send('stop');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
