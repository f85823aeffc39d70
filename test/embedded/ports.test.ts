import { createServer } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { findFreePort, preferPort } from '../../src/embedded/ports.ts';

describe('findFreePort', () => {
  it('when asked, then the port is below the ephemeral range that outgoing connections take their ports from, and a server can listen on it', async () => {
    const port = await findFreePort();

    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(32_768);
    const server = createServer().listen(port, '127.0.0.1');
    await once(server, 'listening');
    server.close();
  });

  it('when the preferred port is taken, then preferPort answers another free one', async () => {
    const taken = createServer().listen(await findFreePort(), '127.0.0.1');
    await once(taken, 'listening');
    const { port } = taken.address() as { port: number };
    try {
      const other = await preferPort(port);
      expect(other).not.toBe(port);
      expect(await preferPort(other)).toBe(other);
    } finally {
      taken.close();
    }
  });
});
