import { createServer, type AddressInfo } from 'node:net';

export type ConnectionCounter = { port: number; connections(): number; reset(): void; close(): Promise<void> };

/** A TCP listener on loopback that only counts connections (and hangs up): proof that a refused request sent nothing. */
export async function startConnectionCounter(): Promise<ConnectionCounter> {
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    reset: () => {
      connections = 0;
    },
    close: () => new Promise<void>((resolveClose) => server.close(() => resolveClose())),
  };
}
