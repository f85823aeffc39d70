import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto';

// Secrets we must be able to read back (webhook signing secrets, social credentials) are stored sealed with
// AES-256-GCM, so a database dump alone reveals nothing and any change to a stored value is detected on open.
// The `v1.` prefix leaves room to change the algorithm or rotate keys without guessing what a stored value is.

export type SecretBox = { seal(plaintext: string): string; open(sealed: string): string };

const keyBytes = 32;
// 96-bit IVs are GCM's native size; a random one per seal keeps the chance of reuse negligible for the number of
// secrets one key will ever seal.
const ivBytes = 12;
const tagBytes = 16;
const version = 'v1';

// Only the canonical encoding is accepted, so one sealed value has exactly one spelling.
function decodeCanonical(part: string): Buffer | undefined {
  const bytes = Buffer.from(part, 'base64url');
  return bytes.toString('base64url') === part ? bytes : undefined;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== keyBytes) throw new Error(`secret box key must be ${keyBytes} bytes, got ${key.length}`);
  // Made once: given as a Buffer, every cipher would build its key object anew (an event's round opens one secret
  // per webhook).
  const secretKey = createSecretKey(key);

  return {
    seal(plaintext) {
      const iv = randomBytes(ivBytes);
      const cipher = createCipheriv('aes-256-gcm', secretKey, iv, { authTagLength: tagBytes });
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [version, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },

    open(sealed) {
      const [prefix, ...encoded] = sealed.split('.');
      const [iv, ciphertext, tag] = encoded.map(decodeCanonical);
      if (prefix !== version || encoded.length !== 3 || !iv || !ciphertext || !tag) {
        throw new Error(`sealed secret is not in the ${version}.<iv>.<ciphertext>.<tag> base64url format`);
      }
      if (iv.length !== ivBytes || tag.length !== tagBytes) throw new Error('sealed secret has a malformed IV or tag');

      // The tag length is pinned: GCM would otherwise accept a truncated tag, which is far easier to forge.
      const decipher = createDecipheriv('aes-256-gcm', secretKey, iv, { authTagLength: tagBytes });
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
      } catch (error) {
        throw new Error('sealed secret could not be opened: it was altered or sealed with another key', { cause: error });
      }
    },
  };
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
