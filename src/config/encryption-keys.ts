import { createHash } from 'node:crypto';

// ENCRYPTION_KEYS holds the key that seals (first) and older keys that only open, so a key can be rotated without
// a moment when some process cannot read what another wrote. Each key is known by an id derived from the key
// itself, which sealed values carry: operators never name keys, and an id reveals nothing usable about its key.

export const keyBytes = 32;

/** 8 base64url characters (48 bits) of a hash of the key: a handful of configured keys never collide. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('content-service encryption key id\0').update(key).digest('base64url').slice(0, 8);
}

/** Reads a 32-byte key written as base64 or base64url (padding optional), as kept in an environment variable. */
export function parseEncryptionKey(text: string): Buffer {
  const trimmed = text.trim();
  if (trimmed === '') throw new Error('encryption key is empty');
  const unpadded = trimmed.replace(/={1,2}$/, '');
  if (!/^[A-Za-z0-9+/]+$/.test(unpadded) && !/^[A-Za-z0-9_-]+$/.test(unpadded)) {
    throw new Error('encryption key is not base64 or base64url');
  }
  // Node's base64 decoder reads both alphabets.
  const key = Buffer.from(unpadded, 'base64');
  if (key.length !== keyBytes) {
    throw new Error(`encryption key must be ${keyBytes} bytes, got ${key.length} (make one with: openssl rand -base64 32)`);
  }
  return key;
}

/**
 * Reads a comma-separated list of keys, the current one first. A malformed entry is named by its position (never
 * by its text, which may be most of a key); a key given twice is refused, since it is almost always a paste error.
 */
export function parseEncryptionKeys(text: string): Buffer[] {
  const entries = text.split(',');
  const keys = entries.map((entry, index) => {
    try {
      return parseEncryptionKey(entry);
    } catch (error) {
      throw new Error(`key ${index + 1} of ${entries.length}: ${(error as Error).message}`, { cause: error });
    }
  });
  const ids = keys.map(keyIdOf);
  ids.forEach((id, index) => {
    const first = ids.indexOf(id);
    if (first !== index) throw new Error(`key ${index + 1} of ${entries.length} repeats key ${first + 1}`);
  });
  return keys;
}
