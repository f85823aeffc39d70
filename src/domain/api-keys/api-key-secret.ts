import { createHash, randomBytes } from 'node:crypto';

// An API key is `sk_` followed by 32 random bytes in base64url (43 characters). With that much entropy a fast
// hash is safe to store: nobody can brute-force 256 bits, so SHA-256 lookups replace slow password hashing.
export const apiKeyPattern = /^sk_[A-Za-z0-9_-]{43}$/;
const prefixLength = 11;

export type ApiKeySecret = { key: string; hash: string; prefix: string };

export function generateApiKeySecret(): ApiKeySecret {
  const key = `sk_${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, prefixLength) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
