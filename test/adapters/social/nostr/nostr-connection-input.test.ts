import { describe, expect, it } from 'vitest';
import { nsecEncode } from 'nostr-tools/nip19';
import { bytesToHex, hexToBytes } from 'nostr-tools/utils';
import { nostrCredentialsOf } from '../../../../src/adapters/social/nostr/nostr-connection-input.ts';
import { AppError } from '../../../../src/common/errors/app-error.ts';

// A Nostr connection's key and relays as given to POST /social-connections: what is kept, and what is refused naming
// its field.

const key = 'b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfef';

function refusalOf(input: Parameters<typeof nostrCredentialsOf>[0]): AppError {
  const refusal: unknown = (() => {
    try {
      return nostrCredentialsOf(input);
    } catch (error) {
      return error;
    }
  })();
  expect(refusal).toBeInstanceOf(AppError);
  return refusal as AppError;
}

describe('nostrCredentialsOf', () => {
  it('when the key is given as upper-case hex or as nsec, then it is kept as lower-case hex; without one a new one is made', () => {
    const relays = ['wss://relay.example.com'];
    expect(nostrCredentialsOf({ platform: 'nostr', secretKey: key.toUpperCase(), relays }).secretKey).toBe(key);
    expect(nostrCredentialsOf({ platform: 'nostr', secretKey: nsecEncode(hexToBytes(key)), relays }).secretKey).toBe(key);
    const made = nostrCredentialsOf({ platform: 'nostr', relays }).secretKey;
    expect(made).toMatch(/^[0-9a-f]{64}$/);
    expect(made).not.toBe(nostrCredentialsOf({ platform: 'nostr', relays }).secretKey);
  });

  it('when the key is not one (zero, past the curve order, a bad nsec checksum), then it is refused naming /secretKey', () => {
    const badNsec = nsecEncode(hexToBytes(key)).replace(/.$/, (last) => (last === 'q' ? 'p' : 'q'));
    for (const secretKey of ['0'.repeat(64), 'f'.repeat(64), badNsec, bytesToHex(new Uint8Array(31))]) {
      expect(refusalOf({ platform: 'nostr', secretKey, relays: ['wss://relay.example.com'] }).extras.errors).toEqual([
        expect.objectContaining({ location: 'body', path: '/secretKey' }),
      ]);
    }
  });

  it('when relays repeat or end in a slash, then each is kept once without it; one that is no wss:// URL is refused naming it', () => {
    const kept = nostrCredentialsOf({ platform: 'nostr', secretKey: key, relays: ['wss://a.example.com/', 'wss://a.example.com', 'wss://b.example.com/path'] });
    expect(kept.relays).toEqual(['wss://a.example.com', 'wss://b.example.com/path']);
    expect(refusalOf({ platform: 'nostr', secretKey: key, relays: ['wss://a.example.com', 'wss://a b'] }).extras.errors).toEqual([
      expect.objectContaining({ path: '/relays/1' }),
    ]);
    // Named by its index in the request, repeats included.
    expect(refusalOf({ platform: 'nostr', secretKey: key, relays: ['wss://a.example.com', 'wss://a.example.com/', 'wss://a b'] }).extras.errors).toEqual([
      expect.objectContaining({ path: '/relays/2' }),
    ]);
  });
});
