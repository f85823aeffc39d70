import { readFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';

export type HttpsServer = { url: string; close(): Promise<void> };

/** An HTTPS server on 127.0.0.1 (port 0) with the run's dev certificate, which test processes trust. */
export async function startHttpsServer(handler: RequestListener): Promise<HttpsServer> {
  const server = createServer({ cert: readFileSync(inject('devCertPath')), key: readFileSync(inject('devKeyPath')) }, handler);
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
