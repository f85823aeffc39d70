import { createServer } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { findFreePort, portRange, preferPort } from '../../../src/local/embedded/ports.ts';

describe('findFreePort', () => {
  it('when test files run side by side, then each draws its ports from a slice of its own, inside the range', () => {
    const slices = [1, 2, 3].map((index) => portRange(`${index}/3`));

    expect(slices[0]!.first).toBe(20_000);
    expect(slices[2]!.pastLast).toBeLessThanOrEqual(32_768);
    for (const [index, slice] of slices.entries()) {
      expect(slice.pastLast - slice.first).toBeGreaterThan(4_000);
      if (index > 0) expect(slice.first).toBeGreaterThanOrEqual(slices[index - 1]!.pastLast);
    }
    // This file's own slice, from its worker's number (test/setup/own-ports-and-scratch.ts).
    const own = portRange(process.env.PORT_SLICE);
    expect(own.pastLast - own.first).toBeLessThan(12_768);
  });

  it('when the slice makes no sense, then the whole range', () => {
    for (const slice of [undefined, '', '0/2', '3/2', '1/0', '1/33', 'x/y', '1/2/3']) expect(portRange(slice)).toEqual({ first: 20_000, pastLast: 32_768 });
  });

  it('when asked, then the port is below the ephemeral range that outgoing connections take their ports from, and a server can listen on it', async () => {
    const port = await findFreePort();

    const { first, pastLast } = portRange(process.env.PORT_SLICE);
    expect(port).toBeGreaterThanOrEqual(first);
    expect(port).toBeLessThan(pastLast);
    const server = createServer().listen(port, '127.0.0.1');
    await once(server, 'listening');
    server.close();
  });

  it('when asked many times in a row, then no port comes twice, as a server told several binds them only later', async () => {
    const ports = [];
    for (let index = 0; index < 200; index += 1) ports.push(await findFreePort());

    expect(new Set(ports).size).toBe(ports.length);
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
