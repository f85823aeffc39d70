import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { failureOf } from '../support/failure-of.ts';

const base = { DATABASE_URL: 'postgresql://u@localhost:5432/db', URL_SIGNING_SECRET: 'x'.repeat(32) };
const [a, b] = [randomBytes(32), randomBytes(32)];

describe('loadConfig: encryption keys', () => {
  it('when ENCRYPTION_KEYS lists two keys, then the first seals and both open', () => {
    const config = loadConfig({ ...base, ENCRYPTION_KEYS: `${b.toString('base64')},${a.toString('base64')}` });
    expect(config.secrets.encryptionKeys.map((key) => key.toString('hex'))).toEqual([b.toString('hex'), a.toString('hex')]);
  });

  it('when only ENCRYPTION_KEY is set, then it is the one key', () => {
    const config = loadConfig({ ...base, ENCRYPTION_KEY: a.toString('base64') });
    expect(config.secrets.encryptionKeys.map((key) => key.toString('hex'))).toEqual([a.toString('hex')]);
  });

  it.each([
    [
      'a short second key',
      { ENCRYPTION_KEYS: `${a.toString('base64')},${b.toString('base64').slice(0, 20)}` },
      'ENCRYPTION_KEYS: key 2 of 2: encryption key must be 32 bytes, got 15',
    ],
    ['an empty entry', { ENCRYPTION_KEYS: `${a.toString('base64')},,${b.toString('base64')}` }, 'ENCRYPTION_KEYS: key 2 of 3: encryption key is empty'],
    [
      'a list in ENCRYPTION_KEY',
      { ENCRYPTION_KEY: `${a.toString('base64')},${b.toString('base64')}` },
      'ENCRYPTION_KEY: encryption key is not base64 or base64url',
    ],
    [
      'both variables',
      { ENCRYPTION_KEYS: a.toString('base64'), ENCRYPTION_KEY: b.toString('base64') },
      'ENCRYPTION_KEYS: set ENCRYPTION_KEYS or ENCRYPTION_KEY, not both',
    ],
    ['neither variable', {}, 'ENCRYPTION_KEYS: is required'],
  ])('when the keys are %s, then start-up fails naming the variable (and the position)', (_case, keys, message) => {
    const attempt = () => loadConfig({ ...base, ...keys });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(message);
  });

  it('when a listed key is malformed, then the message does not repeat the keys', async () => {
    const listed = `${a.toString('base64')},${b.toString('base64').slice(0, 20)}`;
    const { message } = await failureOf(
      Promise.resolve().then(() => loadConfig({ ...base, ENCRYPTION_KEYS: listed })),
      ConfigError,
    );
    expect(message).toContain('ENCRYPTION_KEYS');
    expect(message).not.toContain(a.toString('base64').slice(0, 12));
    expect(message).not.toContain(b.toString('base64').slice(0, 12));
  });
});
