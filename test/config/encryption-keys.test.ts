import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyIdOf, parseEncryptionKey, parseEncryptionKeys } from '../../src/config/encryption-keys.ts';
import { createSecretBox } from '../../src/adapters/crypto/secret-box.ts';

// Chosen so that its base64 and base64url spellings differ.
const bytes = Buffer.from(Array.from({ length: 32 }, (_value, index) => 0xfb + index * 37));

describe('parseEncryptionKey', () => {
  it.each([
    ['base64 with padding', bytes.toString('base64')],
    ['base64 without padding', bytes.toString('base64').replace(/=+$/, '')],
    ['base64url', bytes.toString('base64url')],
    ['base64url with padding', `${bytes.toString('base64url')}=`],
    ['base64 with a trailing newline', `${bytes.toString('base64')}\n`],
  ])('when the key is %s, then it reads the 32 bytes', (_case, text) => {
    expect(bytes.toString('base64')).toMatch(/[+/]/);
    expect(parseEncryptionKey(text).equals(bytes)).toBe(true);
  });

  it('when the parsed key is used, then a box seals and opens with it', () => {
    const fromText = createSecretBox([parseEncryptionKey(bytes.toString('base64url'))]);
    expect(createSecretBox([bytes]).open(fromText.seal('credential'))).toBe('credential');
  });

  it.each([
    ['', 'encryption key is empty'],
    ['   ', 'encryption key is empty'],
    ['not a key!', 'encryption key is not base64 or base64url'],
    [`${bytes.toString('base64').slice(0, 20)}-_${bytes.toString('base64').slice(22)}`, 'encryption key is not base64 or base64url'],
    [randomBytes(16).toString('base64'), 'encryption key must be 32 bytes, got 16'],
    [randomBytes(33).toString('base64url'), 'encryption key must be 32 bytes, got 33'],
    ['a-secret-password', 'encryption key must be 32 bytes, got 12'],
  ])('when the key text is %j, then it fails saying "%s"', (text, message) => {
    expect(() => parseEncryptionKey(text)).toThrow(message);
  });
});

describe('parseEncryptionKeys', () => {
  const [a, b] = [randomBytes(32), randomBytes(32)];

  it('when keys are listed with commas (spaces allowed), then they come back in order, the current first', () => {
    const keys = parseEncryptionKeys(`${b.toString('base64')}, ${a.toString('base64url')}`);
    expect(keys.map((key) => key.toString('hex'))).toEqual([b.toString('hex'), a.toString('hex')]);
  });

  it.each([
    [() => `${a.toString('base64')},${randomBytes(16).toString('base64')},${b.toString('base64')}`, 'key 2 of 3: encryption key must be 32 bytes, got 16'],
    [() => `${a.toString('base64')},`, 'key 2 of 2: encryption key is empty'],
    [() => `${a.toString('base64')},not a key!`, 'key 2 of 2: encryption key is not base64 or base64url'],
    [() => `${a.toString('base64')},${b.toString('base64')},${a.toString('base64url')}`, 'key 3 of 3 repeats key 1'],
  ])('when one entry is malformed, then the error names its position and not its text', (text, message) => {
    const list = text();
    expect(() => parseEncryptionKeys(list)).toThrow(message);
  });
});

describe('keyIdOf', () => {
  it('when a key is named, then its id is 8 base64url characters, the same every time, and differs between keys', () => {
    const [a, b] = [randomBytes(32), randomBytes(32)];
    expect(keyIdOf(a)).toMatch(/^[\w-]{8}$/);
    expect(keyIdOf(Buffer.from(a))).toBe(keyIdOf(a));
    expect(keyIdOf(a)).not.toBe(keyIdOf(b));
    expect(a.toString('base64url')).not.toContain(keyIdOf(a));
  });
});
