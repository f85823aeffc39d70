import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { randomUUID } from 'node:crypto';
import { contentTypeOfKey, type ObjectStorage } from './object-storage.ts';
import { signObjectUrl } from './url-signature.ts';

export type FilesystemStorageOptions = {
  directory: string;
  urlSigningSecret: string;
  defaultTtlSeconds: number;
  /** The api's public base URL; a function because tests learn the port only after listening. */
  baseUrl: () => string;
};

/** The default driver: objects are files under one directory, served by the api at signed, expiring URLs. */
export function createFilesystemStorage(options: FilesystemStorageOptions): ObjectStorage {
  const root = resolve(options.directory);
  const readPieceBytes = 1024 * 1024;

  function pathOf(key: string): string {
    const path = resolve(root, key);
    if (!path.startsWith(root + sep)) throw new Error(`Object key escapes the storage directory: ${key}`);
    return path;
  }

  return {
    driver: 'filesystem',

    async prepare() {
      await mkdir(root, { recursive: true });
    },

    async put(key, body) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // Write then rename, so a reader never sees half a file and a crash leaves no torn object behind.
      const temporary = join(dirname(path), `.${randomUUID()}.partial`);
      try {
        await writeFile(temporary, body);
        await rename(temporary, path);
      } catch (error) {
        // A failed write (disk full, a directory in the way) must not leave its bytes behind.
        await rm(temporary, { force: true });
        throw error;
      }
    },

    async get(key) {
      // Opened before it is read: an object deleted between a look and the read would otherwise fail the stream
      // later (ENOENT), where no one listens; an open file stays readable whatever happens to its name.
      const handle = await open(pathOf(key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
      if (!handle) return null;
      const info = await handle.stat();
      if (!info.isFile()) {
        await handle.close();
        return null;
      }
      // Read in 1 MiB pieces: a video streamed to a platform is read on the thread that sends it, and 64 KiB reads
      // would make a 200 MB video 3,000 turns of the event loop, each competing with the upload.
      return { body: handle.createReadStream({ highWaterMark: readPieceBytes }), contentType: contentTypeOfKey(key), size: info.size };
    },

    async delete(key) {
      await rm(pathOf(key), { force: true });
    },

    signedUrl(key, ttlSeconds = options.defaultTtlSeconds) {
      const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
      const signature = signObjectUrl(options.urlSigningSecret, key, expires);
      const path = key.split('/').map(encodeURIComponent).join('/');
      return Promise.resolve(`${options.baseUrl()}/files/${path}?expires=${expires}&signature=${signature}`);
    },
  };
}
