import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { jsonOf, startScriptedServer, type Received, type Reply, type Route, type ScriptedResponse, type ScriptedServer } from './scripted-server.ts';

// A local stand-in for Slack's Web API: the methods a bot posting in a channel uses, each linked to its page. Every
// method is `POST /api/<method>` with the bot token as a bearer token, its arguments as a form or JSON, and answers
// HTTP 200 with `{ ok: true, … }` or `{ ok: false, error }`; a rate limit is HTTP 429 with Retry-After and
// `{ ok: false, error: 'ratelimited' }` (https://docs.slack.dev/apis/web-api/rate-limits). The upload URL that
// files.getUploadURLExternal gives points back at the fake. Each method requires the bot token scopes its page lists
// (`missing_scope`, with `needed` and `provided`, otherwise). What it cannot show of the real Slack: the real rate-limit tiers (a test scripts a 429), message formatting, file scanning and
// thumbnails, and how long Slack takes to share a file (here: at once, or after `sharePolls` polls of files.info).

type SlackMethod =
  'auth.test' | 'conversations.info' | 'chat.postMessage' | 'files.getUploadURLExternal' | 'upload' | 'files.completeUploadExternal' | 'files.info';

/** A scripted answer: `status` 200 with `error` is Slack's usual refusal; 429 is a rate limit (with `retryAfter`). */
type SlackScriptedResponse = ScriptedResponse & { error?: string };

type SlackRequest = { method: string; path: string; headers: IncomingHttpHeaders };
/** What a method that got past authentication and the script was called with. */
type SlackCall = { method: SlackMethod; args: Record<string, unknown> };

type SlackChannel = { id: string; name: string; isMember: boolean; isPrivate: boolean };
type SlackFile = {
  id: string;
  filename: string;
  length: number;
  altText: string | undefined;
  uploadPath: string;
  bytes: Buffer | undefined;
  contentType: string | undefined;
  title: string | undefined;
  /** Where it was shared: channel id → the message's ts. */
  shares: Map<string, string>;
  /** files.info polls left before the share shows. */
  pollsLeft: number;
};
type SlackMessage = { ts: string; channel: string; text: string; files: SlackFile[] };

/** `url` is the Web API's base (SLACK_API_URL). */
export type SlackServer = ScriptedServer<SlackMethod, SlackScriptedResponse, SlackRequest> & {
  botToken: string;
  /** The bot token's scopes; every scope we ask for unless a test takes one away. */
  botScopes: Set<string>;
  team: { id: string; name: string; url: string };
  bot: { userId: string; botId: string };
  channels: SlackChannel[];
  messages: SlackMessage[];
  files: SlackFile[];
  calls: SlackCall[];
  /** How many files.info polls a file's share takes to show; 0: completeUploadExternal answers it. */
  sharePolls: number;
  /** The next request to `method` answers 429 with Retry-After `seconds`. */
  rateLimitOnce(method: SlackMethod, seconds: number): void;
  /** The next request to `method` answers `{ ok: false, error }`. */
  refuseOnce(method: SlackMethod, error: string): void;
};

// Slack's own limit: past it, chat.postMessage answers msg_too_long.
const maxTextChars = 40_000;

function refusal(error: string, status = 200): Reply {
  return { status, body: { ok: false, error } };
}

function failure(status: number, error: string | undefined): Reply {
  if (status === 429) return refusal(error ?? 'ratelimited', 429);
  if (status >= 500) return refusal(error ?? 'internal_error', status);
  return refusal(error ?? 'invalid_arguments', status);
}

/** A method's arguments: JSON, or a form (whose JSON-valued arguments, like `files`, stay strings). */
function argsOf(received: Received): Record<string, unknown> {
  if ((received.request.headers['content-type'] ?? '').startsWith('application/json')) return jsonOf(received);
  return Object.fromEntries(new URLSearchParams(received.body.toString('utf8')));
}

/** Starts the fake on 127.0.0.1 (port 0); it accepts only `Bearer <botToken>`. */
export async function startSlackServer(): Promise<SlackServer> {
  let lastTs = Math.floor(Date.now() / 1000) * 1_000_000;
  const nextTs = () => {
    lastTs += 1;
    return `${Math.floor(lastTs / 1_000_000)}.${String(lastTs % 1_000_000).padStart(6, '0')}`;
  };
  let lastFile = 0;

  const scripted = await startScriptedServer<SlackMethod, SlackScriptedResponse, SlackRequest>({
    name: 'slack',
    rateLimitResetHeader: 'x-rate-limit-reset',
    record: (request, url) => ({ method: request.method ?? 'GET', path: url.pathname, headers: request.headers }),
    route,
    failure: (status, { error }) => failure(status, error),
  });
  const server: SlackServer = {
    ...scripted,
    url: `${scripted.url}/api`,
    botToken: `xoxb-${randomBytes(12).toString('hex')}`,
    botScopes: new Set(['chat:write', 'files:write', 'files:read', 'channels:read', 'groups:read']),
    team: { id: 'T0FAKE0001', name: 'Acme', url: 'https://acme.slack.com/' },
    bot: { userId: 'U0FAKEBOT1', botId: 'B0FAKEBOT1' },
    channels: [
      { id: 'C0NEWS0001', name: 'news', isMember: true, isPrivate: false },
      { id: 'G0TEAM0001', name: 'team', isMember: true, isPrivate: true },
      { id: 'C0OTHER001', name: 'other', isMember: false, isPrivate: false },
    ],
    messages: [],
    files: [],
    calls: [],
    sharePolls: 0,
    rateLimitOnce: (method, seconds) => scripted.script(method, [{ status: 429, retryAfter: String(seconds) }]),
    refuseOnce: (method, error) => scripted.script(method, [{ status: 200, error }]),
  };

  const channelOf = (id: unknown) => server.channels.find((channel) => channel.id === id);

  function fileJson(file: SlackFile) {
    const shown = file.pollsLeft === 0 ? [...file.shares] : [];
    const shares: Record<string, Record<string, unknown[]>> = {};
    for (const [channelId, ts] of shown) {
      const kind = channelOf(channelId)?.isPrivate ? 'private' : 'public';
      shares[kind] = { ...shares[kind], [channelId]: [{ ts, channel_name: channelOf(channelId)?.name, team_id: server.team.id, reply_count: 0 }] };
    }
    return {
      id: file.id,
      name: file.filename,
      title: file.title ?? file.filename,
      mimetype: file.contentType ?? '',
      size: file.length,
      alt_txt: file.altText,
      channels: shown.filter(([id]) => !channelOf(id)?.isPrivate).map(([id]) => id),
      groups: shown.filter(([id]) => channelOf(id)?.isPrivate).map(([id]) => id),
      shares,
    };
  }

  /** https://docs.slack.dev/reference/methods/auth.test */
  function authTest(): Reply {
    return {
      status: 200,
      body: {
        ok: true,
        url: server.team.url,
        team: server.team.name,
        user: 'publisher',
        team_id: server.team.id,
        user_id: server.bot.userId,
        bot_id: server.bot.botId,
      },
    };
  }

  /** https://docs.slack.dev/reference/methods/conversations.info */
  function conversationsInfo(args: Record<string, unknown>): Reply {
    const channel = channelOf(args.channel);
    if (!channel) return refusal('channel_not_found');
    return {
      status: 200,
      body: {
        ok: true,
        channel: { id: channel.id, name: channel.name, is_channel: true, is_private: channel.isPrivate, is_member: channel.isMember, is_archived: false },
      },
    };
  }

  /** Where a bot may post: the channel exists and the bot is in it. */
  function postingRefusal(channelId: unknown): Reply | undefined {
    const channel = channelOf(channelId);
    if (!channel) return refusal('channel_not_found');
    if (!channel.isMember) return refusal('not_in_channel');
    return undefined;
  }

  /** https://docs.slack.dev/reference/methods/chat.postMessage */
  function postMessage(args: Record<string, unknown>): Reply {
    const refused = postingRefusal(args.channel);
    if (refused) return refused;
    const text = typeof args.text === 'string' ? args.text : '';
    if (!text) return refusal('no_text');
    if (Array.from(text).length > maxTextChars) return refusal('msg_too_long');
    const message: SlackMessage = { ts: nextTs(), channel: channelOf(args.channel)!.id, text, files: [] };
    server.messages.push(message);
    return {
      status: 200,
      body: { ok: true, channel: message.channel, ts: message.ts, message: { type: 'message', text, user: server.bot.userId, ts: message.ts } },
    };
  }

  /** https://docs.slack.dev/reference/methods/files.getUploadURLExternal */
  function getUploadUrl(args: Record<string, unknown>): Reply {
    const length = Number(args.length);
    if (typeof args.filename !== 'string' || !args.filename || !Number.isInteger(length) || length < 1) return refusal('invalid_arguments');
    if (typeof args.alt_txt === 'string' && Array.from(args.alt_txt).length > 1_000) return refusal('alt_txt_too_large');
    lastFile += 1;
    const file: SlackFile = {
      id: `F0FAKE${String(lastFile).padStart(4, '0')}`,
      filename: args.filename,
      length,
      altText: typeof args.alt_txt === 'string' ? args.alt_txt : undefined,
      uploadPath: `/upload/v1/${randomBytes(16).toString('base64url')}`,
      bytes: undefined,
      contentType: undefined,
      title: undefined,
      shares: new Map(),
      pollsLeft: 0,
    };
    server.files.push(file);
    return { status: 200, body: { ok: true, upload_url: `${scripted.url}${file.uploadPath}`, file_id: file.id } };
  }

  /** The upload URL: takes the bytes (raw, as this service sends them) and answers in plain words, not JSON. */
  function upload(file: SlackFile, received: Received): Reply {
    if (received.body.length !== file.length) return { status: 400, body: `Length mismatch: expected ${file.length}, got ${received.body.length}` };
    file.bytes = received.body;
    file.contentType = received.request.headers['content-type'];
    return { status: 200, body: `OK - ${received.body.length}` };
  }

  /** https://docs.slack.dev/reference/methods/files.completeUploadExternal */
  function completeUpload(args: Record<string, unknown>): Reply {
    let listed: unknown = args.files;
    if (typeof listed === 'string') {
      try {
        listed = JSON.parse(listed);
      } catch {
        return refusal('invalid_arguments');
      }
    }
    if (!Array.isArray(listed) || listed.length === 0 || listed.length > 10) return refusal('invalid_arguments');
    const files = listed.map((entry) => server.files.find((file) => file.id === (entry as { id?: unknown }).id));
    if (files.some((file) => file === undefined || file.bytes === undefined)) return refusal('file_not_found');
    const uploaded = files as SlackFile[];
    for (const [index, file] of uploaded.entries()) {
      const title = (listed[index] as { title?: unknown }).title;
      if (typeof title === 'string') file.title = title;
    }
    if (args.channel_id !== undefined) {
      const refused = postingRefusal(args.channel_id);
      if (refused) return refused;
      const message: SlackMessage = {
        ts: nextTs(),
        channel: channelOf(args.channel_id)!.id,
        text: typeof args.initial_comment === 'string' ? args.initial_comment : '',
        files: uploaded,
      };
      server.messages.push(message);
      for (const file of uploaded) {
        file.shares.set(message.channel, message.ts);
        file.pollsLeft = server.sharePolls;
      }
    }
    return { status: 200, body: { ok: true, files: uploaded.map(fileJson) } };
  }

  /** https://docs.slack.dev/reference/methods/files.info */
  function filesInfo(args: Record<string, unknown>): Reply {
    const file = server.files.find((candidate) => candidate.id === args.file);
    if (!file) return refusal('file_not_found');
    const answer = { status: 200, body: { ok: true, file: fileJson(file) } };
    if (file.pollsLeft > 0) file.pollsLeft -= 1;
    return answer;
  }

  const methods: Record<string, (args: Record<string, unknown>) => Reply> = {
    'auth.test': authTest,
    'conversations.info': conversationsInfo,
    'chat.postMessage': postMessage,
    'files.getUploadURLExternal': getUploadUrl,
    'files.completeUploadExternal': completeUpload,
    'files.info': filesInfo,
  };

  // Each method's "Required scopes" (bot token), from its page: https://docs.slack.dev/reference/methods/conversations.info
  // (channels:read, groups:read for a private channel), https://docs.slack.dev/reference/methods/chat.postMessage,
  // https://docs.slack.dev/reference/methods/files.getUploadURLExternal,
  // https://docs.slack.dev/reference/methods/files.completeUploadExternal, https://docs.slack.dev/reference/methods/files.info.
  function scopeNeeded(method: SlackMethod, args: Record<string, unknown>): string | undefined {
    switch (method) {
      case 'conversations.info':
        return channelOf(args.channel)?.isPrivate ? 'groups:read' : 'channels:read';
      case 'chat.postMessage':
        return 'chat:write';
      case 'files.getUploadURLExternal':
      case 'files.completeUploadExternal':
        return 'files:write';
      case 'files.info':
        return 'files:read';
      default:
        return undefined;
    }
  }

  function route(request: IncomingMessage, url: URL): Route<SlackMethod> | Reply {
    const uploading = request.method === 'POST' ? server.files.find((file) => file.uploadPath === url.pathname) : undefined;
    if (uploading) return { endpoint: 'upload', handle: (received) => upload(uploading, received) };
    const name = /^\/api\/([a-zA-Z.]+)$/.exec(url.pathname)?.[1];
    const handler = name ? methods[name] : undefined;
    if (!name || !handler) return { status: 404, body: { ok: false, error: 'unknown_method' } };
    const header = request.headers.authorization;
    return {
      endpoint: name as SlackMethod,
      handle: (received) => {
        if (!header) return refusal('not_authed');
        if (header !== `Bearer ${server.botToken}`) return refusal('invalid_auth');
        const args = argsOf(received);
        const needed = scopeNeeded(name as SlackMethod, args);
        if (needed && !server.botScopes.has(needed))
          return { status: 200, body: { ok: false, error: 'missing_scope', needed, provided: [...server.botScopes].join(',') } };
        server.calls.push({ method: name as SlackMethod, args });
        return handler(args);
      },
    };
  }

  return server;
}
