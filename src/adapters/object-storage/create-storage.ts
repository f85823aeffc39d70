import type { Config } from '../../config.ts';
import { createFilesystemStorage } from './filesystem-storage.ts';
import type { ObjectStorage } from './object-storage.ts';
import { createS3Storage } from './s3-storage.ts';

/** The storage driver chosen by STORAGE_DRIVER. */
export function createStorage(config: Config['storage'], baseUrl: () => string): ObjectStorage {
  if (config.driver === 's3') {
    return createS3Storage({ ...config.s3, defaultTtlSeconds: config.signedUrlTtlSeconds });
  }
  return createFilesystemStorage({
    directory: config.directory,
    urlSigningSecret: config.urlSigningSecret,
    defaultTtlSeconds: config.signedUrlTtlSeconds,
    baseUrl,
  });
}
