import { connect, createServer } from 'node:net';

/** Asks the kernel for a free TCP port on loopback. */
export function findFreePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolvePort(address.port);
        else reject(new Error('Could not determine a free port'));
      });
    });
  });
}

/** The preferred port when nothing listens on it, otherwise any free port. */
export async function preferPort(preferred: number): Promise<number> {
  const available = await new Promise<boolean>((resolveAvailable) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolveAvailable(false));
    server.listen(preferred, '127.0.0.1', () => server.close(() => resolveAvailable(true)));
  });
  return available ? preferred : findFreePort();
}

/** Resolves once something accepts TCP connections on 127.0.0.1:port. */
export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolveOpen) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolveOpen(true);
      });
      socket.once('error', () => resolveOpen(false));
    });
    if (open) return;
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
  throw new Error(`Nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
}
