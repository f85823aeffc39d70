import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../../src/adapters/database/database-unavailable.ts';
import { findFreePort } from '../../../src/local/embedded/ports.ts';
import { createS3Storage } from '../../../src/adapters/object-storage/s3-storage.ts';
import { isStorageUnavailable } from '../../../src/adapters/object-storage/storage-unavailable.ts';

describe('an object store that does not answer', () => {
  it('when the S3 client finds nothing listening, then the error is storage being down, not the database', async () => {
    const port = await findFreePort();
    const client = new S3Client({
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
      maxAttempts: 1,
    });
    const error = await client.send(new HeadObjectCommand({ Bucket: 'b', Key: 'k' })).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(Error);
    expect(isStorageUnavailable(error)).toBe(true);
    expect(isDatabaseUnavailable(error)).toBe(false);
    client.destroy();
  });

  it('when the store takes the connection and then never answers, then the request gives up as storage being down', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolveListen) => silent.listen(0, '127.0.0.1', resolveListen));
    const { port } = silent.address() as { port: number };
    const storage = createS3Storage({
      bucket: 'b',
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      accessKeyId: 'x',
      secretAccessKey: 'y',
      forcePathStyle: true,
      defaultTtlSeconds: 60,
      idleTimeoutMs: 300,
    });
    try {
      const error = await storage.get('k').then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(isStorageUnavailable(error)).toBe(true);
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolveClose) => silent.close(resolveClose));
    }
  });

  it('when a database connection is refused, then it is the database being down, not storage', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(isDatabaseUnavailable(refused)).toBe(true);
    expect(isStorageUnavailable(refused)).toBe(false);
  });
});
