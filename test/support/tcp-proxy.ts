import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export type TcpProxy = {
  /** `127.0.0.1:<port>`, to give a process in place of the target's address. */
  address: string;
  /** The network between the two sides fails: open connections are reset, new ones are refused until `restore`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
};

/** A TCP relay on loopback to `target` (`host:port`), whose line can be cut and mended, as a network partition does. */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const open = new Set<Socket>();
  let isCut = false;
  const server = createServer((incoming) => {
    if (isCut) {
      incoming.resetAndDestroy();
      return;
    }
    const outgoing = connect({ host, port });
    for (const socket of [incoming, outgoing]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => {});
    }
    incoming.pipe(outgoing).pipe(incoming);
    outgoing.on('close', () => incoming.destroy());
    incoming.on('close', () => outgoing.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut() {
      isCut = true;
      for (const socket of open) socket.resetAndDestroy();
    },
    restore() {
      isCut = false;
    },
    async close() {
      for (const socket of open) socket.destroy();
      const closed = once(server, 'close');
      server.close();
      await closed;
    },
  };
}
