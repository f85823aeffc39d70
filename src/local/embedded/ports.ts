import { connect, createServer } from 'node:net';

// A port for a server that must be told it in advance (a Temporal or PostgreSQL server, a child process). Ports the
// kernel picks on its own, for a listener on port 0 and for every outgoing connection's local end, come from the
// ephemeral range (32768–60999 on Linux, 49152–65535 on macOS): a port found free there can be taken by any
// connection before its server binds it, and once was in CI (EADDRINUSE). Below that range only a server told
// its port takes one.
const firstPort = 20_000;
const pastLastPort = 32_768;

// Ports this process handed out lately. A server is often told several before it binds any (the Temporal dev server
// takes four), and a port handed out is free until then: without this, two of them could be the same.
const handedOut = new Set<number>();
const rememberedPorts = 256;

/** A TCP port on loopback that is free now, outside the kernel's ephemeral range (within this process's slice). */
export async function findFreePort(): Promise<number> {
  const { first, pastLast } = portRange(process.env.PORT_SLICE);
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = first + Math.floor(Math.random() * (pastLast - first));
    if (handedOut.has(port) || !(await isFree(port))) continue;
    handedOut.add(port);
    if (handedOut.size > rememberedPorts) handedOut.delete(handedOut.values().next().value!);
    return port;
  }
  throw new Error(`No free port found between ${first} and ${pastLast - 1} in 100 tries`);
}

/**
 * The ports a process draws from. A port found free is not yet taken: two processes that look at the same moment
 * can both find it so. Processes that start servers side by side (the test suite's files, a few at a time) are
 * each given a slice of the range of their own in PORT_SLICE, `<index>/<count>` counting from 1, and the processes
 * they start inherit it. Without it, or when it makes no sense, the whole range.
 */
export function portRange(slice: string | undefined): { first: number; pastLast: number } {
  const [index, count] =
    /^(\d+)\/(\d+)$/
      .exec(slice ?? '')
      ?.slice(1)
      .map(Number) ?? [];
  if (!index || !count || index > count || count > 32) return { first: firstPort, pastLast: pastLastPort };
  const size = Math.floor((pastLastPort - firstPort) / count);
  return { first: firstPort + (index - 1) * size, pastLast: firstPort + index * size };
}

/** The preferred port when nothing listens on it, otherwise any free port. */
export async function preferPort(preferred: number): Promise<number> {
  return (await isFree(preferred)) ? preferred : findFreePort();
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolveFree(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolveFree(true)));
  });
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
