import { S3Client, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFilesystemStorage } from '../../../src/adapters/object-storage/filesystem-storage.ts';
import type { ObjectStorage } from '../../../src/adapters/object-storage/object-storage.ts';
import { createS3Storage } from '../../../src/adapters/object-storage/s3-storage.ts';
import { isValidObjectSignature } from '../../../src/adapters/object-storage/url-signature.ts';
import { startS3Server, type S3Server } from '../../infra/s3-server.ts';

let s3Server: S3Server;
const directory = mkdtempSync(join(tmpdir(), 'storage-test-'));
const signingSecret = randomBytes(32).toString('base64url');

beforeAll(async () => {
  s3Server = await startS3Server();
});
afterAll(async () => {
  await s3Server?.stop();
  rmSync(directory, { recursive: true, force: true });
});

function s3Storage(overrides: { secretAccessKey?: string; bucket?: string } = {}): ObjectStorage {
  return createS3Storage({
    bucket: overrides.bucket ?? 'content-test',
    region: 'us-east-1',
    endpoint: s3Server.endpoint,
    accessKeyId: s3Server.accessKeyId,
    secretAccessKey: overrides.secretAccessKey ?? s3Server.secretAccessKey,
    forcePathStyle: true,
    defaultTtlSeconds: 60,
  });
}

const drivers: Array<[string, () => ObjectStorage]> = [
  ['filesystem', () => createFilesystemStorage({ directory, urlSigningSecret: signingSecret, defaultTtlSeconds: 60, baseUrl: () => 'http://files.test' })],
  ['s3', () => s3Storage()],
];

describe.each(drivers)('%s driver', (_name, create) => {
  it('when an object is put, then it can be read, and after delete it is gone (and deleting again succeeds)', async () => {
    const storage = create();
    await storage.prepare();
    const key = `workspaces/w1/projects/p1/cover-${randomBytes(4).toString('hex')}.png`;
    await storage.put(key, Buffer.from('png bytes'), 'image/png');
    const object = await storage.get(key);
    expect(object).toMatchObject({ contentType: 'image/png', size: 9 });
    expect(await text(object!.body)).toBe('png bytes');

    await storage.delete(key);
    expect(await storage.get(key)).toBeNull();
    await expect(storage.delete(key)).resolves.toBeUndefined();
  });

  it('when a missing object is read, then it is null', async () => {
    expect(await create().get('workspaces/none/missing.png')).toBeNull();
  });
});

describe('S3 driver against a signature-checking server', () => {
  it('when a presigned URL is fetched, then it serves the object; tampered, it is refused', async () => {
    const storage = s3Storage();
    await storage.prepare();
    await storage.put('signed/cover.webp', Buffer.from('webp bytes'), 'image/webp');
    const url = await storage.signedUrl('signed/cover.webp', 60);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/webp');
    expect(await response.text()).toBe('webp bytes');

    const tampered = new URL(url);
    tampered.pathname = tampered.pathname.replace('cover.webp', 'other.webp');
    expect((await fetch(tampered)).status).toBe(403);
  });

  it('when the secret key is wrong, then the server refuses the request', async () => {
    const storage = s3Storage({ secretAccessKey: 'not-the-secret' });
    await expect(storage.put('denied.png', Buffer.from('x'), 'image/png')).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
  });

  it('when the bucket does not exist, then prepare creates it', async () => {
    const bucket = `fresh-${randomBytes(4).toString('hex')}`;
    await s3Storage({ bucket }).prepare();
    const client = new S3Client({
      region: 'us-east-1',
      endpoint: s3Server.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: s3Server.accessKeyId, secretAccessKey: s3Server.secretAccessKey },
    });
    const listing = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect(listing.KeyCount).toBe(0);
  });
});

describe('filesystem driver signed URLs', () => {
  it('when a URL is signed, then only the same key and expiry verify, and only until it expires', async () => {
    const storage = drivers[0]![1]();
    const url = new URL(await storage.signedUrl('a/b.png', 60));
    expect(url.origin).toBe('http://files.test');
    expect(url.pathname).toBe('/files/a/b.png');
    const signature = { expires: Number(url.searchParams.get('expires')), signature: url.searchParams.get('signature')! };
    expect(isValidObjectSignature(signingSecret, 'a/b.png', signature)).toBe(true);
    expect(isValidObjectSignature(signingSecret, 'a/c.png', signature)).toBe(false);
    expect(isValidObjectSignature(signingSecret, 'a/b.png', { ...signature, expires: signature.expires + 1 })).toBe(false);
    expect(isValidObjectSignature(signingSecret, 'a/b.png', signature, (signature.expires + 1) * 1000)).toBe(false);
  });

  it('when a key tries to leave the storage directory, then it is refused', async () => {
    await expect(drivers[0]![1]().put('../escape.png', Buffer.from('x'), 'image/png')).rejects.toThrow(/escapes/);
  });

  it('when a write fails, then no partial file is left behind', async () => {
    // A non-empty directory where the object should go makes the final rename fail after the bytes are written.
    mkdirSync(join(directory, 'blocked', 'cover.png'), { recursive: true });
    writeFileSync(join(directory, 'blocked', 'cover.png', 'keep'), 'x');
    await expect(drivers[0]![1]().put('blocked/cover.png', Buffer.from('bytes'), 'image/png')).rejects.toThrow();
    expect(readdirSync(join(directory, 'blocked'))).toEqual(['cover.png']);
  });
});
