import { describe, expect, it } from 'vitest';
import { isSecretHeader, redactCredentials } from '../../../src/common/redaction/redact-credentials.ts';

describe('redactCredentials', () => {
  it('when a URL carries a Telegram bot token in its path, then the token is replaced and the bot id and method kept', () => {
    expect(redactCredentials('https://api.telegram.org/bot123456:AAH-x_9zQ/sendPhoto')).toBe('https://api.telegram.org/bot123456:REDACTED/sendPhoto');
    expect(redactCredentials('/file/bot123456:AAH-x_9zQ/photos/a.jpg')).toBe('/file/bot123456:REDACTED/photos/a.jpg');
  });

  it('when a URL is a Discord or Slack webhook, then its token is replaced and its id kept', () => {
    expect(redactCredentials('https://discord.com/api/v10/webhooks/112233445566778899/Zx-9_aa?wait=true')).toBe(
      'https://discord.com/api/v10/webhooks/112233445566778899/REDACTED?wait=true',
    );
    expect(redactCredentials('https://hooks.slack.com/services/T0001/B0002/abcDEF123')).toBe('https://hooks.slack.com/services/T0001/B0002/REDACTED');
  });

  it('when a path is one of our own webhook routes (a UUID), then it is kept', () => {
    const path = '/api/v1/webhooks/0b6f1c2e-1d2a-4c1b-9a3e-2f1e0d9c8b7a/deliveries';
    expect(redactCredentials(path)).toBe(path);
  });

  it('when a query carries OAuth, Graph API or signed-link credentials, then their values are replaced and the rest kept', () => {
    expect(redactCredentials('/oauth/threads/callback?code=AQBabc&state=s3cr3t#_')).toBe('/oauth/threads/callback?code=REDACTED&state=REDACTED#_');
    expect(
      redactCredentials(
        'https://graph.threads.net/oauth/access_token?client_id=42&client_secret=shh&grant_type=authorization_code&redirect_uri=https%3A%2F%2Fus%2Fcb&code=AQB',
      ),
    ).toBe(
      'https://graph.threads.net/oauth/access_token?client_id=42&client_secret=REDACTED&grant_type=authorization_code&redirect_uri=https%3A%2F%2Fus%2Fcb&code=REDACTED',
    );
    expect(redactCredentials('/v1.0/me?fields=id,username&access_token=THAAx')).toBe('/v1.0/me?fields=id,username&access_token=REDACTED');
    expect(redactCredentials('/debug_token?input_token=a&appsecret_proof=b&fb_exchange_token=c')).toBe(
      '/debug_token?input_token=REDACTED&appsecret_proof=REDACTED&fb_exchange_token=REDACTED',
    );
    expect(redactCredentials('/files/a.png?expires=1&signature=abc')).toBe('/files/a.png?expires=1&signature=REDACTED');
    expect(redactCredentials('code=AQB&state=s1&scope=a')).toBe('code=REDACTED&state=REDACTED&scope=a');
    expect(redactCredentials('/o?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=f00&X-Amz-Security-Token=t')).toBe(
      '/o?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED&X-Amz-Security-Token=REDACTED',
    );
  });

  it('when a URL names a user and password, then both are replaced', () => {
    expect(redactCredentials('https://me:pa55@example.com/x')).toBe('https://REDACTED:REDACTED@example.com/x');
  });

  it('when text quotes a URL among other words, then only the credential changes', () => {
    expect(redactCredentials('GET https://h/x?token=abc failed: ECONNRESET')).toBe('GET https://h/x?token=REDACTED failed: ECONNRESET');
  });

  it('when text carries no credential, then it is returned as it was', () => {
    for (const text of ['POST /api/v1/posts/{id}/generate', 'https://h/v2/media?page=2&limit=10', 'code 42 in state A', '']) {
      expect(redactCredentials(text)).toBe(text);
    }
  });
});

describe('isSecretHeader', () => {
  it('when a header carries credentials by name, then it is secret; content headers are not', () => {
    for (const name of ['Authorization', 'cookie', 'Set-Cookie', 'X-Api-Key', 'x-amz-security-token', 'X-Goog-Signature'])
      expect(isSecretHeader(name)).toBe(true);
    for (const name of ['content-type', 'accept', 'x-request-id', 'idempotency-key']) expect(isSecretHeader(name)).toBe(false);
  });
});
