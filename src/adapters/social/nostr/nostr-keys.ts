import { decode, npubEncode } from 'nostr-tools/nip19';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { bytesToHex, hexToBytes } from 'nostr-tools/utils';

// A Nostr account is a secp256k1 key pair (NIP-01): the secret key signs every event, the public key is the account.
// Customers give the secret key as 64 hex digits or as the `nsec1…` of NIP-19; it is kept as hex.

const hexKey = /^[0-9a-f]{64}$/;

/** The secret key as 64 lowercase hex digits, from hex or `nsec1…`; undefined when it is neither. */
export function secretKeyHexOf(given: string): string | undefined {
  const trimmed = given.trim();
  if (hexKey.test(trimmed.toLowerCase())) return validKey(trimmed.toLowerCase());
  if (!trimmed.startsWith('nsec1')) return undefined;
  try {
    const decoded = decode(trimmed);
    return decoded.type === 'nsec' ? validKey(bytesToHex(decoded.data)) : undefined;
  } catch {
    return undefined;
  }
}

/** A new secret key, for a connection made without one. */
export function newSecretKeyHex(): string {
  return bytesToHex(generateSecretKey());
}

/** The account a secret key signs as: its public key in hex (what events carry) and as the `npub1…` people share. */
export function publicKeyOf(secretKeyHex: string): { hex: string; npub: string } {
  const hex = getPublicKey(hexToBytes(secretKeyHex));
  return { hex, npub: npubEncode(hex) };
}

// Zero and values at or past the curve's order are not keys: getPublicKey throws on them.
function validKey(hex: string): string | undefined {
  try {
    getPublicKey(hexToBytes(hex));
    return hex;
  } catch {
    return undefined;
  }
}
