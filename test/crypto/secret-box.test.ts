import { createDecipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, parseEncryptionKey } from '../../src/crypto/secret-box.ts';

const key = randomBytes(32);
const box = createSecretBox(key);

/** Replaces the part at `index` (0 = version) with the same bytes, one bit flipped. */
function flipBit(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index] ?? '', 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('createSecretBox', () => {
  it.each([
    ['a webhook secret', 'whsec-3f9a7c1e'],
    ['text outside ASCII', 'clé secrète 🔑'],
    ['an empty string', ''],
    ['a long credential', 'x'.repeat(10_000)],
  ])('when %s is sealed, then it opens to the same text', (_case, plaintext) => {
    expect(box.open(box.seal(plaintext))).toBe(plaintext);
  });

  it('when a value is sealed, then it is v1.<iv>.<ciphertext>.<tag> in base64url and AES-256-GCM decrypts it', () => {
    const sealed = box.seal('social-token-123');
    expect(sealed).toMatch(/^v1\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/);
    expect(sealed).not.toContain('social-token-123');

    const [, iv, ciphertext, tag] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', key, iv!, { authTagLength: 16 });
    decipher.setAuthTag(tag!);
    expect(Buffer.concat([decipher.update(ciphertext!), decipher.final()]).toString('utf8')).toBe('social-token-123');
  });

  it('when the same text is sealed twice, then the IVs and ciphertexts differ', () => {
    const [first, second] = [box.seal('same'), box.seal('same')];
    expect(first.split('.')[1]).not.toBe(second.split('.')[1]);
    expect(first).not.toBe(second);
    expect([box.open(first), box.open(second)]).toEqual(['same', 'same']);
  });

  it.each([
    [1, 'IV'],
    [2, 'ciphertext'],
    [3, 'tag'],
  ])('when one bit of the %s (part %s) is changed, then opening fails as tampered', (index) => {
    const tampered = flipBit(box.seal('webhook secret'), index);
    expect(() => box.open(tampered)).toThrow('sealed secret could not be opened: it was altered or sealed with another key');
  });

  it('when the value was sealed with another key, then opening fails clearly', () => {
    const sealed = createSecretBox(randomBytes(32)).seal('webhook secret');
    expect(() => box.open(sealed)).toThrow('sealed secret could not be opened: it was altered or sealed with another key');
  });

  it('when the tag is truncated, then opening refuses it rather than checking a shorter tag', () => {
    const [version, iv, ciphertext, tag] = box.seal('webhook secret').split('.');
    const shortTag = Buffer.from(tag!, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => box.open([version, iv, ciphertext, shortTag].join('.'))).toThrow('sealed secret has a malformed IV or tag');
  });

  it.each([
    ['another version', (sealed: string) => sealed.replace(/^v1\./, 'v2.')],
    ['a missing part', (sealed: string) => sealed.split('.').slice(0, 3).join('.')],
    ['an extra part', (sealed: string) => `${sealed}.AAAA`],
    ['characters outside base64url', (sealed: string) => sealed.replace(/\.([\w-])/, '.+')],
    ['plain text', () => 'not sealed at all'],
  ])('when the value has %s, then opening fails naming the format', (_case, mangle) => {
    expect(() => box.open(mangle(box.seal('webhook secret')))).toThrow(/^sealed secret is not in the v1\.<iv>\.<ciphertext>\.<tag> base64url format$/);
  });

  it.each([0, 16, 31, 33, 64])('when the key is %i bytes, then creating the box fails', (length) => {
    expect(() => createSecretBox(randomBytes(length))).toThrow(`secret box key must be 32 bytes, got ${length}`);
  });
});

describe('parseEncryptionKey', () => {
  // Chosen so that its base64 and base64url spellings differ.
  const bytes = Buffer.from(Array.from({ length: 32 }, (_value, index) => 0xfb + index * 37));

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
    const fromText = createSecretBox(parseEncryptionKey(bytes.toString('base64url')));
    expect(createSecretBox(bytes).open(fromText.seal('credential'))).toBe('credential');
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
