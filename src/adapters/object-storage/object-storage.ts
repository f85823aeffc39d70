import type { Readable } from 'node:stream';

// One interface for every place that stores bytes (covers now; post images and videos later). Keys are chosen by
// the caller (see object-keys.ts) and never contain user input, so drivers can map them to paths or S3 keys as is.
export type ObjectStorage = {
  readonly driver: 'filesystem' | 's3';
  /** Makes sure the store can be used (creates the directory or bucket when missing); called at start-up. */
  prepare(): Promise<void>;
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /** Null when the object does not exist. */
  get(key: string): Promise<StoredObject | null>;
  /** Idempotent: deleting a missing object succeeds. */
  delete(key: string): Promise<void>;
  /** An absolute URL anyone can GET until it expires. */
  signedUrl(key: string, ttlSeconds?: number): Promise<string>;
};

type StoredObject = { body: Readable; contentType: string; size: number };

const contentTypes: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  mp4: 'video/mp4',
};

export function contentTypeOfKey(key: string): string {
  const extension = key.slice(key.lastIndexOf('.') + 1).toLowerCase();
  return contentTypes[extension] ?? 'application/octet-stream';
}
