import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase, type Database } from '../../../src/adapters/database/orm.ts';
import type { Schemas } from '../../../src/api/schemas.ts';
import { createWorkspace } from '../../../src/domain/workspaces/create-workspace.ts';
import { startDiscordServer, type DiscordServer } from '../../fakes/discord-server.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../../fakes/otlp-receiver.ts';
import { startTelegramServer, type TelegramServer } from '../../fakes/telegram-server.ts';
import { startThreadsServer, type ThreadsServer } from '../../fakes/threads-server.ts';
import { startApiProcess } from '../../support/api-process.ts';
import { eventually } from '../../support/eventually.ts';
import { apiClient, type ApiClient } from '../../support/http.ts';
import { continueOnConsentPage, threadsEnv, visit } from '../../support/oauth-connections.ts';
import { publishAndWait } from '../../support/published-targets.ts';
import { testConfigEnv } from '../../support/test-config.ts';
import { createTestDatabase } from '../../support/test-database.ts';
import { startWorkerProcess } from '../../support/worker-process.ts';

// The production entry points as processes with tracing on, calling the platforms that put credentials in URLs:
// Telegram (the bot token in the path), Discord (the webhook token in the path), Threads (the app secret, the
// authorization code and the access tokens in query strings), our OAuth callback (code and state) and a signed
// file link (signature). Every exported span, whole, and every log line must be free of every one of them.
// What was captured stays in test-artifacts/telemetry/ for anyone to grep (docs/operations.md, Tracing).

// Git-ignored, as the dashboard's screenshots; replaced by each run.
const captureDir = fileURLToPath(new URL('../../../test-artifacts/telemetry/', import.meta.url));
const redirectUri = 'https://client.example/connected';
// Query parameters whose values the fake Threads received are credentials.
const credentialParameters = ['access_token', 'client_secret'];

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: Database;
let receiver: OtlpReceiver;
let telegram: TelegramServer;
let discord: DiscordServer;
let threads: ThreadsServer;
let processes: ChildProcess[] = [];
let logs: () => string;
let apiKey: string;
let client: ApiClient;

beforeAll(async () => {
  database = await createTestDatabase();
  orm = await openDatabase(database.url);
  [receiver, telegram, discord, threads] = await Promise.all([startOtlpReceiver(), startTelegramServer(), startDiscordServer(), startThreadsServer()]);
  const env = {
    ...testConfigEnv(database.url),
    ...threadsEnv(threads),
    TELEGRAM_API_URL: telegram.url,
    DISCORD_API_URL: discord.apiUrl,
    NODE_EXTRA_CA_CERTS: inject('devCaCertPath'),
    API_WAIT_SECONDS: '10',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    // Export spans soon after they end rather than every five seconds.
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  const api = await startApiProcess(env);
  // The worker hands Threads signed links to the image, which Threads fetches from the api.
  const worker = await startWorkerProcess({ ...env, PUBLIC_URL: api.url });
  processes = [worker.process, api.process];
  logs = () => `${api.output()}${worker.output()}`;
  ({ apiKey } = await createWorkspace(orm, { name: 'Traced', plan: 'growth' }));
  client = apiClient(api.url, apiKey);
  expect((await client.call('PATCH', '/workspace', { body: { oauthRedirectUris: [redirectUri] } })).status).toBe(200);
}, 120_000);
afterAll(async () => {
  for (const child of processes) {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
  await Promise.all([receiver?.close(), telegram?.close(), discord?.close(), threads?.close()]);
  await orm?.close();
  await database?.drop();
});

describe('no secret in telemetry', () => {
  it('when connections are made and a post is published to Telegram, Discord and Threads with tracing on, then no credential used appears in any exported span or log line', async () => {
    const connectionIds = [
      await connected({ platform: 'telegram', botToken: telegram.token, chatId: '@harbour_news' }),
      await connected({ platform: 'discord', webhookUrl: discord.webhookUrl }),
    ];
    const oauth = await connectedThroughOAuth();
    connectionIds.push(oauth.connectionId);
    const projectId = (await client.post<{ id: string }>('/projects', { name: 'Traced' })).body.id;
    const postId = (await client.post<{ id: string }>('/posts', { title: 'Harbour', prompt: 'Boats at night', projectId })).body.id;
    expect((await client.post(`/posts/${postId}/generate`)).status).toBe(200);
    const imageUrl = new URL((await client.get<Schemas['Post']>(`/posts/${postId}`)).body.imageUrl!);
    expect((await fetch(imageUrl)).status).toBe(200);
    const targets = await publishAndWait(client, postId, { connectionIds });
    expect(targets.map((target) => target.status)).toEqual(['Published', 'Published', 'Published']);

    // Every call above is in: the requests that carried each kind of credential have been exported.
    await eventually(
      () =>
        Promise.resolve(
          expectExported(['/sendPhoto', `/webhooks/${discordWebhookId()}/`, '/oauth/access_token', 'threads_publish', '/oauth/threads/callback', '/files/']),
        ),
      30_000,
    );
    const secrets = secretsUsed(imageUrl, oauth.callback);
    const spans = receiver.bodies.join('\n');
    capture(spans, logs(), secrets);

    for (const secret of secrets) {
      expect(spans.includes(secret), `a secret (${secret.slice(0, 3)}…) is in an exported span`).toBe(false);
      expect(logs().includes(secret), `a secret (${secret.slice(0, 3)}…) is in a log line`).toBe(false);
    }
    for (const text of [spans, logs()]) {
      expect(text).not.toMatch(/[?&](?:code|state|signature|access_token|client_secret)=(?!REDACTED)/);
      expect(text).not.toMatch(/\/bot\d+:(?!REDACTED)/);
    }
    // What is left still says what was called.
    expect(spans).toContain(`/bot${telegram.bot.id}:REDACTED/sendPhoto`);
    expect(spans).toContain('/oauth/threads/callback?code=REDACTED&state=REDACTED');
    expect(spans).toContain('/oauth/consent/REDACTED');
  });
});

async function connected(body: Record<string, string>): Promise<string> {
  const created = await client.post<{ id: string }>('/social-connections', body);
  expect(created.status).toBe(201);
  return created.body.id;
}

/**
 * The OAuth round trip a browser makes (as connectThroughOAuth), keeping the URL of our callback the platform sent
 * the person to: it carries the code and the state.
 */
async function connectedThroughOAuth(): Promise<{ connectionId: string; callback: URL }> {
  const created = await client.post<Schemas['OAuthAuthorization']>('/social-connections/authorizations', { platform: 'threads', redirectUri });
  expect(created.status).toBe(201);
  const consent = await visit((await continueOnConsentPage(created.body.authorizationUrl)).toString());
  expect(consent.status).toBe(302);
  const callback = consent.location!;
  const back = await visit(callback.toString());
  expect(back.status).toBe(303);
  return { connectionId: back.location!.searchParams.get('connectionId')!, callback };
}

function discordWebhookId(): string {
  return new URL(discord.webhookUrl).pathname.split('/').at(-2)!;
}

function expectExported(fragments: string[]): void {
  const spans = receiver.bodies.join('\n');
  const missing = fragments.filter((fragment) => !spans.includes(fragment));
  if (missing.length > 0) throw new Error(`not exported yet: ${missing.join(', ')}`);
}

/** Every credential the run used, each kind found at least once (else the test would prove nothing). */
function secretsUsed(imageUrl: URL, callback: URL): string[] {
  const fromThreads = credentialParameters.map((name) => {
    const values = threads.requests.map((request) => request.query.get(name)).filter((value): value is string => Boolean(value));
    expect(values, `no ${name} reached the fake Threads`).not.toEqual([]);
    return values;
  });
  const secrets = [
    telegram.token.split(':')[1]!,
    new URL(discord.webhookUrl).pathname.split('/').at(-1)!,
    threads.app.clientSecret,
    imageUrl.searchParams.get('signature')!,
    callback.searchParams.get('code')!,
    callback.searchParams.get('state')!,
    apiKey,
    ...fromThreads.flat(),
  ];
  for (const secret of secrets) expect(secret.length).toBeGreaterThan(8);
  return [...new Set(secrets)];
}

/** The exported spans, the log lines and the secrets, for a reviewer's own grep after the run. */
function capture(spans: string, lines: string, secrets: string[]): void {
  rmSync(captureDir, { recursive: true, force: true });
  mkdirSync(captureDir, { recursive: true });
  writeFileSync(join(captureDir, 'spans.jsonl'), `${spans}\n`);
  writeFileSync(join(captureDir, 'logs.jsonl'), lines);
  writeFileSync(join(captureDir, 'secrets.txt'), `${secrets.join('\n')}\n`);
  console.log(`exported spans, log lines and the secrets used are in ${captureDir}`);
}
