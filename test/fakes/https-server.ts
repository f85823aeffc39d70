import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { RequestListener } from 'node:http';
import { createServer, type ServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { runCommand } from '../../src/local/embedded/run-command.ts';

export type HttpsServer = { url: string; close(): Promise<void> };

/** An HTTPS server on 127.0.0.1 (port 0) with the run's dev certificate, which test processes trust. */
export function startHttpsServer(handler: RequestListener): Promise<HttpsServer> {
  return listen({ cert: readFileSync(inject('devCertPath')), key: readFileSync(inject('devKeyPath')) }, handler);
}

/** An HTTPS server on 127.0.0.1 with a self-signed certificate of its own, which nothing trusts. */
export async function startSelfSignedHttpsServer(handler: RequestListener): Promise<HttpsServer> {
  const directory = await mkdtemp(join(tmpdir(), 'self-signed-'));
  try {
    const [certPath, keyPath] = [join(directory, 'cert.pem'), join(directory, 'key.pem')];
    await runCommand('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-noenc',
      '-days',
      '1',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ]);
    return await listen({ cert: await readFile(certPath), key: await readFile(keyPath) }, handler);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

async function listen(tls: Pick<ServerOptions, 'cert' | 'key'>, handler: RequestListener): Promise<HttpsServer> {
  const server = createServer(tls, handler);
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
}
