import { createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyIdOf } from '../../../src/config/encryption-keys.ts';
import { createSecretBox, isSealed } from '../../../src/adapters/crypto/secret-box.ts';
import { failureOf } from '../../support/failure-of.ts';
import { sealV1 } from '../../support/sealed-rows.ts';

const key = randomBytes(32);
const box = createSecretBox([key]);
const altered = 'sealed secret could not be opened: it was altered or sealed with another key';

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

  it('when a value is sealed, then it is v2.<keyId>.<iv>.<ciphertext>.<tag>, AES-256-GCM under the purpose subkey with the header authenticated', () => {
    const sealed = box.seal('social-token-123');
    expect(sealed).toMatch(/^v2\.[\w-]{8}\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/);
    expect(sealed.startsWith(box.currentPrefix)).toBe(true);
    expect(sealed).not.toContain('social-token-123');

    const [version, keyId, ...encoded] = sealed.split('.');
    expect(keyId).toBe(keyIdOf(key));
    expect(box.currentKeyId).toBe(keyId);
    const [iv, ciphertext, tag] = encoded.map((part) => Buffer.from(part, 'base64url'));
    const subkey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'content-service sealed secrets', 32));
    const decipher = createDecipheriv('aes-256-gcm', subkey, iv!, { authTagLength: 16 });
    decipher.setAAD(Buffer.from(`${version}.${keyId}`));
    decipher.setAuthTag(tag!);
    expect(Buffer.concat([decipher.update(ciphertext!), decipher.final()]).toString('utf8')).toBe('social-token-123');
  });

  it('when the same text is sealed twice, then the IVs and ciphertexts differ', () => {
    const [first, second] = [box.seal('same'), box.seal('same')];
    expect(first.split('.')[2]).not.toBe(second.split('.')[2]);
    expect(first).not.toBe(second);
    expect([box.open(first), box.open(second)]).toEqual(['same', 'same']);
  });

  it.each([
    [2, 'IV'],
    [3, 'ciphertext'],
    [4, 'tag'],
  ])('when one bit of part %s (the %s) is changed, then opening fails as tampered', (index) => {
    expect(() => box.open(flipBit(box.seal('webhook secret'), index))).toThrow(altered);
  });

  it('when the value was sealed with another key of the same id, then opening fails clearly', () => {
    const other = createSecretBox([randomBytes(32)]).seal('webhook secret');
    const relabelled = [`v2`, box.currentKeyId, ...other.split('.').slice(2)].join('.');
    expect(() => box.open(relabelled)).toThrow(altered);
  });

  it('when the tag is truncated, then opening refuses it rather than checking a shorter tag', () => {
    const [version, keyId, iv, ciphertext, tag] = box.seal('webhook secret').split('.');
    const shortTag = Buffer.from(tag!, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => box.open([version, keyId, iv, ciphertext, shortTag].join('.'))).toThrow('sealed secret has a malformed IV or tag');
  });

  it.each([
    ['another version', (sealed: string) => sealed.replace(/^v2\./, 'v3.')],
    ['a missing part', (sealed: string) => sealed.split('.').slice(0, 4).join('.')],
    ['an extra part', (sealed: string) => `${sealed}.AAAA`],
    ['a key id of the wrong length', (sealed: string) => sealed.replace(/^v2\.[\w-]{8}\./, 'v2.abc.')],
    ['characters outside base64url', (sealed: string) => sealed.replace(/\.([\w-]+)$/, '.+$1')],
    ['plain text', () => 'not sealed at all'],
  ])('when the value has %s, then opening fails naming the format', (_case, mangle) => {
    expect(() => box.open(mangle(box.seal('webhook secret')))).toThrow(
      /^sealed secret is not in the v2\.<keyId>\.<iv>\.<ciphertext>\.<tag> \(or v1\.<iv>\.<ciphertext>\.<tag>\) base64url format$/,
    );
  });

  it.each([0, 16, 31, 33, 64])('when a key is %i bytes, then creating the box fails', (length) => {
    expect(() => createSecretBox([key, randomBytes(length)])).toThrow(`secret box key must be 32 bytes, got ${length}`);
  });

  it('when no key is given, then creating the box fails', () => {
    expect(() => createSecretBox([])).toThrow('secret box needs at least one key');
  });
});

describe('key rotation', () => {
  const keyA = randomBytes(32);
  const keyB = randomBytes(32);

  it('when a value sealed with A is opened by [B, A], then it opens, and [B, A] seals with B, which [B] alone opens', () => {
    const sealedWithA = createSecretBox([keyA]).seal('whsec-rotate-me');
    const rotating = createSecretBox([keyB, keyA]);
    expect(rotating.open(sealedWithA)).toBe('whsec-rotate-me');

    const sealedWithB = rotating.seal('whsec-rotate-me');
    expect(sealedWithB.split('.')[1]).toBe(keyIdOf(keyB));
    expect(createSecretBox([keyB]).open(sealedWithB)).toBe('whsec-rotate-me');
    // Older keys only open: the order of the list decides which key seals.
    expect(createSecretBox([keyA, keyB]).seal('x').split('.')[1]).toBe(keyIdOf(keyA));
  });

  it('when a value names a key that is not configured, then opening fails naming both key ids and nothing secret', async () => {
    const sealedWithA = createSecretBox([keyA]).seal('whsec-do-not-print');
    const { message } = await failureOf(Promise.resolve().then(() => createSecretBox([keyB]).open(sealedWithA)));
    expect(message).toBe(
      `sealed secret was sealed with key ${keyIdOf(keyA)}, which is not configured (configured: ${keyIdOf(keyB)}); add that key to ENCRYPTION_KEYS, after the current one, to read it`,
    );
    for (const secret of ['whsec-do-not-print', keyA.toString('base64'), keyB.toString('base64'), keyA.toString('base64url'), keyB.toString('base64url')]) {
      expect(message).not.toContain(secret);
    }
  });

  it('when a v1 value (no key id) is opened, then any configured key that sealed it opens it, in either box', () => {
    const v1 = sealV1(keyA, 'sealed before key ids');
    expect(createSecretBox([keyB, keyA]).open(v1)).toBe('sealed before key ids');
    expect(createSecretBox([keyA, keyB]).open(v1)).toBe('sealed before key ids');
    // Stored answers were sealed with the secrets' key before they had one of their own.
    expect(createSecretBox([keyB, keyA], 'idempotent-answers').open(v1)).toBe('sealed before key ids');
    expect(() => createSecretBox([keyB]).open(v1)).toThrow(altered);
    expect(() => createSecretBox([keyA]).open(flipBit(v1, 2))).toThrow(altered);
  });

  it('when stored answers and secrets are sealed with one configured key, then each box has a key of its own and the same key id', () => {
    const secrets = createSecretBox([keyA]);
    const answers = createSecretBox([keyA], 'idempotent-answers');
    expect(answers.currentKeyId).toBe(secrets.currentKeyId);
    expect(answers.open(answers.seal('{"key":"sk_x"}'))).toBe('{"key":"sk_x"}');
    expect(() => secrets.open(answers.seal('{"key":"sk_x"}'))).toThrow(altered);
    expect(() => answers.open(secrets.seal('whsec'))).toThrow(altered);
  });
});

describe('isSealed', () => {
  it('when text is a sealed value of either version, then it says so, and plain JSON is not', () => {
    expect(isSealed(box.seal('x'))).toBe(true);
    expect(isSealed(sealV1(key, 'x'))).toBe(true);
    expect(isSealed('{"id":"v1."}')).toBe(false);
  });
});
