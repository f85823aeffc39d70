import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import { keyBytes, keyIdOf } from '../../config/encryption-keys.ts';

// Secrets we must be able to read back (webhook signing secrets, social credentials) and stored idempotent answers
// are sealed with AES-256-GCM, so a database dump alone reveals nothing and any change to a stored value is detected
// on open. A value names the key that sealed it (`v2.<keyId>.<iv>.<ciphertext>.<tag>`), so a process holding the
// current and older keys (ENCRYPTION_KEYS) opens each value with its own key, and `secrets reseal` finds the values
// an older key sealed. `v1.<iv>.<ciphertext>.<tag>` values, sealed before keys had ids, open with any configured
// key.
//
// Each purpose seals with a subkey of its own (HKDF-SHA256 of the configured key): a stored answer and a webhook
// secret never share an AES key, and the configured key itself only opens v1 values.

export type SecretBox = {
  seal(plaintext: string): string;
  open(sealed: string): string;
  /** The id of the key that seals (the first configured). */
  readonly currentKeyId: string;
  /** What every value sealed with the current key starts with; any other value needs a reseal. */
  readonly currentPrefix: string;
};

export type SealPurpose = 'secrets' | 'idempotent-answers';

const subkeyInfo: Record<SealPurpose, string> = {
  secrets: 'content-service sealed secrets',
  'idempotent-answers': 'content-service idempotent answers',
};

// 96-bit IVs are GCM's native size; a random one per seal keeps the chance of reuse negligible for the number of
// values one key will ever seal.
const ivBytes = 12;
const tagBytes = 16;
const formatError = 'sealed secret is not in the v2.<keyId>.<iv>.<ciphertext>.<tag> (or v1.<iv>.<ciphertext>.<tag>) base64url format';
const alteredError = 'sealed secret could not be opened: it was altered or sealed with another key';

/** Sealed text of either version: what a stored answer looks like when it is not plain JSON from before sealing. */
export function isSealed(text: string): boolean {
  return /^v[12]\./.test(text);
}

/** A box sealing with `keys[0]` and opening with any of `keys`. */
export function createSecretBox(keys: readonly Buffer[], purpose: SealPurpose = 'secrets'): SecretBox {
  const [current] = keys;
  if (!current) throw new Error('secret box needs at least one key');
  // Made once: given as a Buffer, every cipher would build its key object anew (an event's round opens one secret
  // per webhook).
  const byId = new Map<string, KeyObject>();
  const v1Keys: KeyObject[] = [];
  for (const key of keys) {
    if (key.length !== keyBytes) throw new Error(`secret box key must be ${keyBytes} bytes, got ${key.length}`);
    byId.set(keyIdOf(key), createSecretKey(Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), subkeyInfo[purpose], keyBytes))));
    v1Keys.push(createSecretKey(key));
  }
  const currentId = keyIdOf(current);
  const currentKey = byId.get(currentId)!;

  return {
    currentKeyId: currentId,
    currentPrefix: `v2.${currentId}.`,

    seal(plaintext) {
      const header = `v2.${currentId}`;
      const iv = randomBytes(ivBytes);
      const cipher = createCipheriv('aes-256-gcm', currentKey, iv, { authTagLength: tagBytes });
      // The header is authenticated too: a value moved to another key id fails as altered.
      cipher.setAAD(Buffer.from(header));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [header, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },

    open(sealed) {
      const parts = sealed.split('.');
      const [version] = parts;
      if (version === 'v2' && parts.length === 5) {
        const keyId = parts[1]!;
        if (!/^[\w-]{8}$/.test(keyId)) throw new Error(formatError);
        const key = byId.get(keyId);
        if (!key) {
          throw new Error(
            `sealed secret was sealed with key ${keyId}, which is not configured (configured: ${[...byId.keys()].join(', ')}); add that key to ENCRYPTION_KEYS, after the current one, to read it`,
          );
        }
        const opened = decrypt(key, parts.slice(2), `v2.${keyId}`);
        if (opened === undefined) throw new Error(alteredError);
        return opened;
      }
      if (version === 'v1' && parts.length === 4) {
        for (const key of v1Keys) {
          const opened = decrypt(key, parts.slice(1));
          if (opened !== undefined) return opened;
        }
        throw new Error(alteredError);
      }
      throw new Error(formatError);
    },
  };
}

/** The plaintext, or undefined when the tag does not verify (altered, or another key). */
function decrypt(key: KeyObject, encoded: string[], header?: string): string | undefined {
  const [iv, ciphertext, tag] = encoded.map(decodeCanonical);
  if (!iv || !ciphertext || !tag) throw new Error(formatError);
  if (iv.length !== ivBytes || tag.length !== tagBytes) throw new Error('sealed secret has a malformed IV or tag');
  // The tag length is pinned: GCM would otherwise accept a truncated tag, which is far easier to forge.
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
  if (header !== undefined) decipher.setAAD(Buffer.from(header));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

// Only the canonical encoding is accepted, so one sealed value has exactly one spelling.
function decodeCanonical(part: string): Buffer | undefined {
  const bytes = Buffer.from(part, 'base64url');
  return bytes.toString('base64url') === part ? bytes : undefined;
}
