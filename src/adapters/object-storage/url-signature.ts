import { createHmac, timingSafeEqual } from 'node:crypto';

// Signed, expiring URLs for objects the filesystem driver serves through the api (S3 presigns its own).
// The signature covers the key and the expiry, so neither can be changed without the secret.

export type UrlSignature = { expires: number; signature: string };

export function signObjectUrl(secret: string, key: string, expires: number): string {
  return createHmac('sha256', secret).update(`${key}\n${expires}`).digest('base64url');
}

export function isValidObjectSignature(secret: string, key: string, { expires, signature }: UrlSignature, now = Date.now()): boolean {
  if (!Number.isInteger(expires) || expires * 1000 < now) return false;
  const expected = Buffer.from(signObjectUrl(secret, key, expires));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
