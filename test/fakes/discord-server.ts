import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { multipartPartsOf, type MultipartPart } from './multipart-parts.ts';
import { loadOpenApiContract, type ApiContract } from './openapi-contract.ts';
import { jsonOf, startScriptedServer, type Received, type Reply, type Route, type ScriptedResponse, type ScriptedServer } from './scripted-server.ts';

// A local stand-in for Discord's webhooks: https://discord.com/developers/docs/resources/webhook#get-webhook-with-token
// and https://discord.com/developers/docs/resources/webhook#execute-webhook (JSON, or multipart with `payload_json`
// and `files[n]`: https://discord.com/developers/docs/reference#uploading-files), under `<url>/api`, versioned
// (`/api/v10/...`) or not, as Discord serves them. Every answer carries the bucket's rate-limit headers and a 429 the
// documented body (https://discord.com/developers/docs/topics/rate-limits); errors are `{message, code}`
// (https://discord.com/developers/docs/reference#error-messages). What it cannot show of the real Discord: its real
// buckets (a test scripts a 429), server boosts' larger files, the message in a channel people read, and the
// deletion of a webhook by a server's admins (a test removes it from `webhooks`).

type DiscordEndpoint = 'get_webhook' | 'execute_webhook';

/** A scripted answer: `retryAfterSeconds` becomes a 429's `retry_after` and its headers; `message`/`code` an error's. */
type DiscordScriptedResponse = ScriptedResponse & { retryAfterSeconds?: number; message?: string; code?: number };

type DiscordRequest = { method: string; path: string; query: URLSearchParams; receivedAt: Date };

/**
 * `channelType` is the webhook's channel's (https://discord.com/developers/docs/resources/channel#channel-object-channel-types):
 * 0 a text channel, 15 a forum, 16 a media channel, where every message starts a thread (a post of the forum).
 */
type DiscordWebhook = { id: string; token: string; name: string; channelId: string; guildId: string; channelType: 0 | 15 | 16 };

/** A message a webhook made: its content and attachments as described in `payload_json`, and every part received. */
type DiscordMessage = {
  id: string;
  webhookId: string;
  content: string;
  payload: Record<string, unknown>;
  attachments: Array<{ id: string; filename: string; description?: string; contentType: string; bytes: Buffer }>;
  parts: MultipartPart[];
};

/** `apiUrl` is DISCORD_API_URL; `webhookUrl` the webhook's URL as Discord's Copy Webhook URL gives it. */
export type DiscordServer = ScriptedServer<DiscordEndpoint, DiscordScriptedResponse, DiscordRequest> & {
  apiUrl: string;
  webhook: DiscordWebhook;
  webhookUrl: string;
  /** The webhooks that exist: removing one makes its URL answer 404 Unknown Webhook. */
  webhooks: DiscordWebhook[];
  messages: DiscordMessage[];
};

const contentMax = 2_000;
const fileMaxBytes = 10 * 1024 * 1024;
const bucket = { limit: 5, resetAfterSeconds: 2 };

// Discord's JSON error codes (https://discord.com/developers/docs/topics/opcodes-and-status-codes#json).
const errors: Record<number, { message: string; code: number }> = {
  400: { message: '400: Bad Request', code: 0 },
  401: { message: 'Invalid Webhook Token', code: 50027 },
  403: { message: 'Missing Permissions', code: 50013 },
  404: { message: 'Unknown Webhook', code: 10015 },
  500: { message: '500: Internal Server Error', code: 0 },
  502: { message: '502: Bad Gateway', code: 0 },
};

function error(status: number, message?: string, code?: number): Reply {
  const known = errors[status] ?? { message: `The fake answered ${status}`, code: 0 };
  return { status, body: { message: message ?? known.message, code: code ?? known.code } };
}

// Discord's own description of its API (test/fixtures/platform-apis/discord), read once per process. It describes
// no multipart parts, so a multipart request's `payload_json` is checked as the JSON body would be.
let contract: ApiContract | undefined;
function contractRefusal(method: string, url: URL, json: unknown): Reply | undefined {
  contract ??= loadOpenApiContract(new URL('../fixtures/platform-apis/discord/openapi.json', import.meta.url).pathname);
  const path = url.pathname.replace(/^\/api(?:\/v\d+)?/, '');
  const problems = contract.problemsOf({ method, path, query: url.searchParams, json });
  if (problems.length === 0) return undefined;
  // https://discord.com/developers/docs/reference#error-messages: 50035 Invalid Form Body, the problems under `errors`.
  return { status: 400, body: { code: 50035, message: 'Invalid Form Body', errors: { _errors: problems.map((message) => ({ code: 'CONTRACT', message })) } } };
}

function invalidFormBody(field: string, code: string, message: string): Reply {
  return { status: 400, body: { code: 50035, message: 'Invalid Form Body', errors: { [field]: { _errors: [{ code, message }] } } } };
}

function failure(status: number, { retryAfterSeconds = 1.5, message, code }: DiscordScriptedResponse): Reply {
  if (status !== 429) return error(status, message, code);
  return {
    status: 429,
    body: { message: message ?? 'You are being rate limited.', retry_after: retryAfterSeconds, global: false },
    headers: {
      'retry-after': String(Math.ceil(retryAfterSeconds)),
      'x-ratelimit-limit': String(bucket.limit),
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': ((Date.now() + retryAfterSeconds * 1000) / 1000).toFixed(3),
      'x-ratelimit-reset-after': String(retryAfterSeconds),
      'x-ratelimit-bucket': 'fake-webhook-bucket',
      'x-ratelimit-scope': 'user',
    },
  };
}

function snowflake(): string {
  // Milliseconds since Discord's epoch (2015) in the high bits, as its ids are made.
  return String(((BigInt(Date.now()) - 1_420_070_400_000n) << 22n) | BigInt(Math.floor(Math.random() * 4_194_304)));
}

/** Starts the fake on 127.0.0.1 (port 0). */
export async function startDiscordServer(): Promise<DiscordServer> {
  let remaining = bucket.limit;
  const scripted = await startScriptedServer<DiscordEndpoint, DiscordScriptedResponse, DiscordRequest>({
    name: 'discord',
    rateLimitResetHeader: 'x-ratelimit-reset-after',
    record: (request, url) => ({ method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, receivedAt: new Date() }),
    route,
    failure,
  });
  const webhook: DiscordWebhook = {
    id: snowflake(),
    token: randomBytes(51).toString('base64url'),
    name: 'Harbour news',
    channelId: snowflake(),
    guildId: snowflake(),
    channelType: 0,
  };
  const apiUrl = `${scripted.url}/api`;
  const server: DiscordServer = {
    ...scripted,
    apiUrl,
    webhook,
    webhookUrl: `${apiUrl}/webhooks/${webhook.id}/${webhook.token}`,
    webhooks: [webhook],
    messages: [],
  };

  /** The bucket's headers on a successful answer: the window counts down and starts again when used up. */
  function withBucket(reply: Reply): Reply {
    remaining = remaining > 1 ? remaining - 1 : bucket.limit;
    return {
      ...reply,
      headers: {
        'x-ratelimit-limit': String(bucket.limit),
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': ((Date.now() + bucket.resetAfterSeconds * 1000) / 1000).toFixed(3),
        'x-ratelimit-reset-after': String(bucket.resetAfterSeconds),
        'x-ratelimit-bucket': 'fake-webhook-bucket',
      },
    };
  }

  /** https://discord.com/developers/docs/resources/webhook#get-webhook-with-token: no `user` field, as with a token. */
  function getWebhook(found: DiscordWebhook): Reply {
    return withBucket({
      status: 200,
      body: {
        application_id: null,
        avatar: null,
        channel_id: found.channelId,
        guild_id: found.guildId,
        id: found.id,
        name: found.name,
        type: 1,
        token: found.token,
      },
    });
  }

  /** https://discord.com/developers/docs/resources/webhook#execute-webhook */
  async function executeWebhook(received: Received, found: DiscordWebhook): Promise<Reply> {
    const parts = await multipartPartsOf(received);
    let payload: Record<string, unknown>;
    if (parts.length > 0) {
      const json = parts.find((part) => part.name === 'payload_json')?.value;
      try {
        payload = json ? (JSON.parse(json) as Record<string, unknown>) : {};
      } catch {
        return error(400, 'Invalid Form Body', 50035);
      }
    } else payload = jsonOf(received);
    const refused = contractRefusal('POST', received.url, payload);
    if (refused) return refused;
    const content = typeof payload.content === 'string' ? payload.content : '';
    if (Array.from(content).length > contentMax) return invalidFormBody('content', 'BASE_TYPE_MAX_LENGTH', `Must be ${contentMax} or fewer in length.`);
    const described = Array.isArray(payload.attachments) ? (payload.attachments as Array<{ id?: unknown; filename?: unknown; description?: unknown }>) : [];
    const attachments: DiscordMessage['attachments'] = [];
    for (const part of parts) {
      const index = /^files\[(\d+)\]$/.exec(part.name)?.[1];
      if (index === undefined || !part.file) continue;
      if (part.file.bytes.length > fileMaxBytes) return error(413, 'Request entity too large', 40005);
      const description = described.find((attachment) => String(attachment.id) === index)?.description;
      attachments.push({
        id: snowflake(),
        filename: part.file.filename,
        ...(typeof description === 'string' ? { description } : {}),
        contentType: part.file.contentType,
        bytes: part.file.bytes,
      });
    }
    if (!content && attachments.length === 0) return error(400, 'Cannot send an empty message', 50006);
    // https://discord.com/developers/docs/resources/webhook#execute-webhook: a forum or media channel's webhook needs
    // `thread_id` or `thread_name` (a new thread of that name), never both; a text channel's makes no thread.
    const threadName = typeof payload.thread_name === 'string' ? payload.thread_name : undefined;
    const threadId = received.url.searchParams.get('thread_id');
    if (threadName !== undefined && threadId !== null) return error(400, 'Webhooks cannot have both a thread_name and thread_id', 220002);
    if (found.channelType !== 0 && threadName === undefined && threadId === null)
      return error(400, 'Webhooks posted to forum channels must have a thread_name or thread_id', 220001);
    if (found.channelType === 0 && threadName !== undefined) return error(400, 'Webhooks can only create threads in forum channels', 220003);
    const message: DiscordMessage = { id: snowflake(), webhookId: found.id, content, payload, attachments, parts };
    server.messages.push(message);
    // Without wait=true Discord answers 204 and no message.
    if (received.url.searchParams.get('wait') !== 'true') return withBucket({ status: 204, body: null });
    return withBucket({
      status: 200,
      body: {
        id: message.id,
        type: 0,
        content,
        channel_id: found.channelId,
        author: { id: found.id, username: found.name, avatar: null, discriminator: '0000', bot: true },
        attachments: attachments.map((attachment) => ({
          id: attachment.id,
          filename: attachment.filename,
          ...(attachment.description ? { description: attachment.description } : {}),
          content_type: attachment.contentType,
          size: attachment.bytes.length,
          url: `https://cdn.discordapp.com/attachments/${found.channelId}/${attachment.id}/${attachment.filename}`,
        })),
        embeds: [],
        mentions: [],
        mention_everyone: false,
        pinned: false,
        tts: false,
        timestamp: new Date().toISOString(),
        flags: 0,
        webhook_id: found.id,
      },
    });
  }

  function route(request: IncomingMessage, url: URL): Route<DiscordEndpoint> | Reply {
    const [, id = '', token = ''] = /^\/api(?:\/v\d+)?\/webhooks\/([0-9]+)\/([^/]+)\/?$/.exec(url.pathname) ?? [];
    if (!id) return error(404, '404: Not Found', 0);
    const found = server.webhooks.find((candidate) => candidate.id === id);
    if (!found) return error(404);
    if (found.token !== token) return error(401);
    if (request.method === 'GET') return { endpoint: 'get_webhook', handle: () => contractRefusal('GET', url, undefined) ?? getWebhook(found) };
    if (request.method === 'POST') return { endpoint: 'execute_webhook', handle: (received) => executeWebhook(received, found) };
    return error(405, '405: Method Not Allowed', 0);
  }

  return server;
}
