import { describe, expect, it } from 'vitest';
import { createOAuthPlatforms } from '../../../src/adapters/social/create-social-connectors.ts';
import { AppError } from '../../../src/common/errors/app-error.ts';
import { loadConfig } from '../../../src/config.ts';
import { configuredOAuth } from '../../../src/domain/social-connections/start-authorization.ts';

const minimal = {
  DATABASE_URL: 'postgresql://u@localhost:5432/db',
  URL_SIGNING_SECRET: 'x'.repeat(32),
  ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};

function refusal(call: () => unknown): AppError {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  return expect.fail('expected a refusal');
}

describe('which platforms an authorization may be started for', () => {
  it('when X has no client id and secret, then it is a 409 saying the operator has not configured it; Mastodon a 400 naming platform', () => {
    const oauth = createOAuthPlatforms(loadConfig(minimal).social);
    const unconfigured = refusal(() => configuredOAuth({ oauth }, 'x'));
    expect(unconfigured.code).toBe('conflict');
    expect(unconfigured.message).toContain('not configured');
    const token = refusal(() => configuredOAuth({ oauth }, 'mastodon'));
    expect(token.code).toBe('validation-failed');
    expect(token.extras.errors?.[0]?.path).toBe('/platform');
  });

  it('when X has its client id and secret, then its OAuth side and the app are handed out', () => {
    const oauth = createOAuthPlatforms(loadConfig({ ...minimal, X_CLIENT_ID: 'id', X_CLIENT_SECRET: 'secret' }).social);
    expect(configuredOAuth({ oauth }, 'x').client).toEqual({ clientId: 'id', clientSecret: 'secret' });
  });
});
