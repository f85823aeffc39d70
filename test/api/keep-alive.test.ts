import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { keepConnectionsAlive } from '../../src/api/keep-alive.ts';

describe('keepConnectionsAlive', () => {
  it.each([65, 620])("when idle connections are kept %i s, then a request's headers get a second longer and a whole request no less", (seconds) => {
    const server = createServer();
    keepConnectionsAlive(server, seconds);
    expect(server.keepAliveTimeout).toBe(seconds * 1000);
    expect(server.headersTimeout).toBe(seconds * 1000 + 1000);
    expect(server.requestTimeout).toBeGreaterThanOrEqual(server.headersTimeout);
  });
});
