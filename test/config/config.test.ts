import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const minimal = {
  DATABASE_URL: 'postgresql://u@localhost:5432/db',
  URL_SIGNING_SECRET: 'x'.repeat(32),
  ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};

describe('loadConfig', () => {
  it('when only the required variables are set, then every other setting has its documented default', () => {
    const config = loadConfig(minimal);
    expect(config.http).toEqual({ host: '0.0.0.0', port: 3000, publicUrl: undefined, trustProxyHops: 0, keepAliveTimeoutSeconds: 65 });
    expect(config.temporal).toMatchObject({ address: 'localhost:7233', namespace: 'default', taskQueue: 'content-service' });
    expect(config.storage).toMatchObject({ driver: 'filesystem', directory: '.data/objects', signedUrlTtlSeconds: 3600 });
    expect(config.rateLimit).toEqual({ requests: 600, windowSeconds: 60, workspaceRequests: 3000, authFailuresPerAddress: 60 });
  });

  it('when only the per-key limit is set, then the workspace ceiling is five times it', () => {
    expect(loadConfig({ ...minimal, RATE_LIMIT_REQUESTS: '100' }).rateLimit).toMatchObject({ requests: 100, workspaceRequests: 500 });
    const explicit = loadConfig({ ...minimal, RATE_LIMIT_REQUESTS: '100', RATE_LIMIT_WORKSPACE_REQUESTS: '150', RATE_LIMIT_AUTH_FAILURES: '10' });
    expect(explicit.rateLimit).toMatchObject({ requests: 100, workspaceRequests: 150, authFailuresPerAddress: 10 });
  });

  it('when HTTP_KEEP_ALIVE_TIMEOUT_SECONDS is set, then idle connections are kept that long; zero or over an hour is refused', () => {
    expect(loadConfig({ ...minimal, HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '620' }).http.keepAliveTimeoutSeconds).toBe(620);
    expect(() => loadConfig({ ...minimal, HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '0' })).toThrow(/HTTP_KEEP_ALIVE_TIMEOUT_SECONDS/);
    expect(() => loadConfig({ ...minimal, HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '3601' })).toThrow(/HTTP_KEEP_ALIVE_TIMEOUT_SECONDS/);
  });

  it('when WEBHOOK_RETRY_WAITS_SECONDS is unset, then deliveries keep the production ladder; a shorter one is taken, a malformed one refused', () => {
    expect(loadConfig(minimal).webhooks.retryWaitsSeconds).toEqual([60, 300, 1800, 7200, 21600, 43200, 86400, 86400]);
    expect(loadConfig({ ...minimal, WEBHOOK_RETRY_WAITS_SECONDS: '1, 2,4' }).webhooks.retryWaitsSeconds).toEqual([1, 2, 4]);
    for (const malformed of ['', '1,,2', '0', '1.5', 'a minute', '604801', Array.from({ length: 21 }, () => '1').join(',')]) {
      expect(() => loadConfig({ ...minimal, WEBHOOK_RETRY_WAITS_SECONDS: malformed })).toThrow(/WEBHOOK_RETRY_WAITS_SECONDS: must list 1 to 20 waits/);
    }
  });

  it('when EVENT_SWEEP_AFTER_SECONDS is unset, then the event sweep leaves an event to its recorder for a minute; 0 to an hour is taken', () => {
    expect(loadConfig(minimal).webhooks.sweepAfterMs).toBe(60_000);
    expect(loadConfig({ ...minimal, EVENT_SWEEP_AFTER_SECONDS: '0' }).webhooks.sweepAfterMs).toBe(0);
    for (const refused of ['-1', '3601', '1.5'])
      expect(() => loadConfig({ ...minimal, EVENT_SWEEP_AFTER_SECONDS: refused })).toThrow(/EVENT_SWEEP_AFTER_SECONDS/);
  });

  it("when X is configured, then both its client id and secret are needed, and its URLs default to X's own", () => {
    expect(loadConfig(minimal).social.x).toEqual({ apiUrl: 'https://api.x.com', authorizeUrl: 'https://x.com/i/oauth2/authorize', client: null });
    expect(loadConfig({ ...minimal, X_CLIENT_ID: 'id', X_CLIENT_SECRET: 'secret' }).social.x.client).toEqual({ clientId: 'id', clientSecret: 'secret' });
    expect(() => loadConfig({ ...minimal, X_CLIENT_ID: 'id' })).toThrow(/X_CLIENT_SECRET: X needs both X_CLIENT_ID and X_CLIENT_SECRET/);
    expect(() => loadConfig({ ...minimal, X_API_URL: 'http://api.x.com' })).toThrow(/X_API_URL/);
  });

  it("when LinkedIn or Threads is configured, then both its client id and secret are needed, and its URLs default to the platform's own", () => {
    expect(loadConfig(minimal).social.linkedin).toEqual({
      apiUrl: 'https://api.linkedin.com',
      authorizeUrl: 'https://www.linkedin.com/oauth/v2',
      organizationAuthors: false,
      client: null,
      organizationClient: null,
    });
    expect(loadConfig(minimal).social.threads).toEqual({
      apiUrl: 'https://graph.threads.net',
      authorizeUrl: 'https://threads.net/oauth/authorize',
      client: null,
    });
    const both = loadConfig({ ...minimal, LINKEDIN_CLIENT_ID: 'li', LINKEDIN_CLIENT_SECRET: 's1', THREADS_CLIENT_ID: 'th', THREADS_CLIENT_SECRET: 's2' });
    expect(both.social.linkedin.client).toEqual({ clientId: 'li', clientSecret: 's1' });
    expect(both.social.threads.client).toEqual({ clientId: 'th', clientSecret: 's2' });
    expect(loadConfig({ ...minimal, LINKEDIN_ORGANIZATION_AUTHORS: 'true' }).social.linkedin.organizationAuthors).toBe(true);
    const organizationApp = { ...minimal, LINKEDIN_ORGANIZATION_CLIENT_ID: 'org', LINKEDIN_ORGANIZATION_CLIENT_SECRET: 's3' };
    expect(loadConfig(organizationApp).social.linkedin.organizationClient).toEqual({ clientId: 'org', clientSecret: 's3' });
    expect(() => loadConfig({ ...minimal, LINKEDIN_ORGANIZATION_CLIENT_ID: 'org' })).toThrow(
      /LINKEDIN_ORGANIZATION_CLIENT_SECRET: LinkedIn's organisation app needs both LINKEDIN_ORGANIZATION_CLIENT_ID and LINKEDIN_ORGANIZATION_CLIENT_SECRET/,
    );
    expect(() => loadConfig({ ...minimal, LINKEDIN_CLIENT_SECRET: 's' })).toThrow(
      /LINKEDIN_CLIENT_ID: LinkedIn needs both LINKEDIN_CLIENT_ID and LINKEDIN_CLIENT_SECRET/,
    );
    expect(() => loadConfig({ ...minimal, THREADS_CLIENT_ID: 'id' })).toThrow(
      /THREADS_CLIENT_SECRET: Threads needs both THREADS_CLIENT_ID and THREADS_CLIENT_SECRET/,
    );
    expect(() => loadConfig({ ...minimal, THREADS_API_URL: 'http://graph.threads.net' })).toThrow(/THREADS_API_URL/);
    expect(loadConfig(minimal).social.slack.apiUrl).toBe('https://slack.com/api');
    expect(() => loadConfig({ ...minimal, SLACK_API_URL: 'http://slack.com/api' })).toThrow(/SLACK_API_URL/);
  });

  it("when Telegram's and Discord's API URLs are not set, then they are the platforms' own; given, they must be https and lose a trailing slash", () => {
    expect(loadConfig(minimal).social.telegram).toEqual({ apiUrl: 'https://api.telegram.org' });
    expect(loadConfig(minimal).social.discord).toEqual({ apiUrl: 'https://discord.com/api' });
    const given = loadConfig({ ...minimal, TELEGRAM_API_URL: 'https://telegram.internal/', DISCORD_API_URL: 'https://discord.internal/api/' });
    expect([given.social.telegram.apiUrl, given.social.discord.apiUrl]).toEqual(['https://telegram.internal', 'https://discord.internal/api']);
    expect(() => loadConfig({ ...minimal, TELEGRAM_API_URL: 'http://api.telegram.org' })).toThrow(/TELEGRAM_API_URL/);
    expect(() => loadConfig({ ...minimal, DISCORD_API_URL: 'http://discord.com/api' })).toThrow(/DISCORD_API_URL/);
  });

  it('when variables are missing or malformed, then it fails naming each of them', () => {
    const attempt = () => loadConfig({ PORT: 'eighty', URL_SIGNING_SECRET: 'short' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/DATABASE_URL/);
    expect(attempt).toThrow(/PORT/);
    expect(attempt).toThrow(/URL_SIGNING_SECRET: must be at least 32 characters/);
    expect(() => loadConfig({ ...minimal, STORAGE_DRIVER: 's3' })).toThrow(/S3_BUCKET: is required when STORAGE_DRIVER=s3/);
    // A delivery round heartbeats between requests: one request may not outlast its heartbeat timeout.
    expect(() => loadConfig({ ...minimal, WEBHOOK_TIMEOUT_SECONDS: '31' })).toThrow(/WEBHOOK_TIMEOUT_SECONDS/);
    expect(loadConfig({ ...minimal, WEBHOOK_TIMEOUT_SECONDS: '30' }).webhooks.timeoutMs).toBe(30_000);
    expect(() => loadConfig({ ...minimal, WEBHOOK_SLOW_CONCURRENCY: '0' })).toThrow(/WEBHOOK_SLOW_CONCURRENCY/);
    expect(loadConfig(minimal).webhooks.slowConcurrency).toBe(200);
    expect(() => loadConfig({ ...minimal, TRUST_PROXY_HOPS: '-1' })).toThrow(/TRUST_PROXY_HOPS/);
    expect(() => loadConfig({ ...minimal, TRUST_PROXY_HOPS: 'true' })).toThrow(/TRUST_PROXY_HOPS/);
    expect(loadConfig({ ...minimal, TRUST_PROXY_HOPS: '2' }).http.trustProxyHops).toBe(2);
  });

  it('when IMAGE_PROVIDER is unset, then Stability AI serves when its key is set, OpenAI when only its key is, else the local renderer', () => {
    expect(loadConfig(minimal).generation.provider).toBe('local');
    expect(loadConfig({ ...minimal, STABILITY_API_KEY: 'sk-s' }).generation.provider).toBe('stability');
    const openai = loadConfig({ ...minimal, OPENAI_IMAGES_API_KEY: 'sk-o' }).generation;
    expect(openai.provider).toBe('openai');
    expect(openai.openai).toEqual({
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-o',
      model: 'gpt-image-1',
      sizes: undefined,
      azure: null,
      allowPrivateNetworks: false,
    });
    expect(() => loadConfig({ ...minimal, STABILITY_API_KEY: 'sk-s', OPENAI_IMAGES_API_KEY: 'sk-o' })).toThrow(/IMAGE_PROVIDER: is required when both/);
    expect(loadConfig({ ...minimal, IMAGE_PROVIDER: 'local', STABILITY_API_KEY: 'sk-s' }).generation.provider).toBe('local');
  });

  it('when IMAGE_PROVIDER names a provider without its settings, then start-up stops naming the variable to set', () => {
    expect(() => loadConfig({ ...minimal, IMAGE_PROVIDER: 'stability' })).toThrow(/STABILITY_API_KEY: is required when IMAGE_PROVIDER=stability/);
    expect(() => loadConfig({ ...minimal, IMAGE_PROVIDER: 'openai' })).toThrow(/OPENAI_IMAGES_API_KEY: is required when IMAGE_PROVIDER=openai/);
    expect(() => loadConfig({ ...minimal, IMAGE_PROVIDER: 'dall-e' })).toThrow(/IMAGE_PROVIDER/);
    const openai = { ...minimal, IMAGE_PROVIDER: 'openai', OPENAI_IMAGES_API_KEY: 'k' };
    expect(() => loadConfig({ ...openai, OPENAI_IMAGES_SIZES: '1024x1024,big' })).toThrow(/OPENAI_IMAGES_SIZES: must list 1 to 20 sizes/);
    expect(loadConfig({ ...openai, OPENAI_IMAGES_SIZES: '1024x1024, 1344x768' }).generation.openai.sizes).toEqual(['1024x1024', '1344x768']);
    expect(() => loadConfig({ ...openai, OPENAI_IMAGES_AZURE_API_VERSION: '2025-04-01-preview' })).toThrow(
      /OPENAI_IMAGES_AZURE_DEPLOYMENT: Azure OpenAI needs both/,
    );
    const azure = { ...openai, OPENAI_IMAGES_AZURE_API_VERSION: '2025-04-01-preview', OPENAI_IMAGES_AZURE_DEPLOYMENT: 'images' };
    expect(() => loadConfig(azure)).toThrow(/OPENAI_IMAGES_URL: must be the Azure OpenAI resource's endpoint/);
    const endpoint = loadConfig({ ...azure, OPENAI_IMAGES_URL: 'https://acme.openai.azure.com/' }).generation.openai;
    expect(endpoint).toMatchObject({ baseUrl: 'https://acme.openai.azure.com', azure: { apiVersion: '2025-04-01-preview', deployment: 'images' } });
  });
});
