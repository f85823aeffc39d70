import { setTimeout as sleep } from 'node:timers/promises';
import { httpsLinkOf, imageFileName, type Answer, type RequestBody } from '../platform-http.ts';
import { imageDimensions } from '../image-dimensions.ts';
import { shortenText } from '../shorten-text.ts';
import { createSlackApi, SlackChannelRefusedError, type SlackApiOptions } from './slack-api.ts';
import {
  SocialOutcomeUnknownError,
  SocialRejectedError,
  type SlackCredentials,
  type SocialConnector,
  type SocialCredentials,
  type SocialPost,
  type SocialPostDraft,
} from '../social-connector.ts';
import { messageOf } from '../../../common/errors/caught.ts';
import { platformNames } from '../social-platforms.ts';

// Slack through its Web API with the bot token of the customer's own Slack app, posting in one channel:
// - text: chat.postMessage (https://docs.slack.dev/reference/methods/chat.postMessage);
// - with an image or a video: files.getUploadURLExternal (https://docs.slack.dev/reference/methods/files.getUploadURLExternal,
//   with the description as `alt_txt`), the bytes sent (a video streamed) to the `upload_url` it gives, then
//   files.completeUploadExternal (https://docs.slack.dev/reference/methods/files.completeUploadExternal) with the
//   channel and the text as `initial_comment`, which posts one message: the text with the file.
// The message's `ts` is its id. chat.postMessage answers it. completeUploadExternal answers the file, whose `shares`
// name the message once Slack has shared the file, which it does asynchronously (its SDK maintainers advise polling
// files.info, https://docs.slack.dev/reference/methods/files.info, when the answer has none yet); so the ts is read
// from the answer's shares, else from files.info a few times. Posting the text with chat.postMessage and an image
// block naming the file would give the ts at once, but Slack can refuse (`invalid_blocks`) a block naming a file it
// has not finished processing, which would fail the post after the upload.
//
// Slack takes no idempotency key and cannot look a message up by a marker of ours: a post whose answer was lost is
// not sent again (see retriesNeverDuplicate).

export type SlackConnectorOptions = SlackApiOptions;

// Slack asks clients to keep a message's text to 4,000 characters "for best results"; it cuts text past 40,000
// without a word. 4,000 is kept to: the text reads whole in the channel (longer ones fold behind "Show more"), and
// the same count holds for an image's `initial_comment`, whose own limit Slack does not document.
const maxTextChars = 4_000;
// files.getUploadURLExternal refuses a longer `alt_txt` (its error `alt_txt_too_large`).
const maxAltChars = 1_000;
// Slack's limit on one file.
const maxFileBytes = 1024 * 1024 * 1024;
// How long the image's message is looked for in files.info after completeUploadExternal answered without it.
const sharePollIntervalMs = 1_000;
const sharePollLimitMs = 20_000;

/** The post's one file: its video (streamed) or its image. */
type SlackUpload = { filename: string; contentType: string; bytes: number; body: RequestBody; alt: string };

function uploadOf({ video, image }: SocialPost): SlackUpload | undefined {
  if (video) return { filename: 'video.mp4', contentType: video.type, bytes: video.bytes, body: video, alt: video.alt };
  if (image)
    return { filename: imageFileName(image.contentType), contentType: image.contentType, bytes: image.bytes.length, body: image.bytes, alt: image.alt };
  return undefined;
}

function accountOf(credentials: SocialCredentials): SlackCredentials {
  if (credentials.platform !== 'slack') throw new SocialRejectedError(`the Slack connector cannot use ${credentials.platform} credentials`);
  return credentials;
}

/** The text as sent, before escaping: the post's, cut to what Slack takes. */
function messageTextOf(post: SocialPostDraft): string {
  return shortenText(post.text, { codePoints: maxTextChars });
}

/**
 * Slack reads `<…>` in a message as a link or mention and `&` as the start of an entity: its formatting page
 * (https://docs.slack.dev/messaging/formatting-message-text#escaping) asks for these three to be escaped.
 */
function escapeText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** The ts of the file's message in `channelId`, from a file object's `shares` (public or private channel). */
function shareTsOf(file: unknown, channelId: string): string | undefined {
  const shares = (file as { shares?: Record<string, Record<string, Array<{ ts?: unknown }>> | undefined> } | undefined)?.shares;
  for (const kind of ['public', 'private']) {
    const ts = shares?.[kind]?.[channelId]?.[0]?.ts;
    if (typeof ts === 'string' && ts) return ts;
  }
  return undefined;
}

/** The connector for Slack. */
export function createSlackConnector(options: SlackConnectorOptions): SocialConnector {
  const api = createSlackApi(options);
  const { http } = api;

  async function uploadFile(token: string, file: SlackUpload): Promise<string> {
    const slot = await api.call(token, 'files.getUploadURLExternal', {
      form: { filename: file.filename, length: String(file.bytes), ...(file.alt ? { alt_txt: shortenText(file.alt, { codePoints: maxAltChars }) } : {}) },
    });
    const fileId = http.textField(slot, 'file_id', 'files.getUploadURLExternal');
    await api.upload(http.textField(slot, 'upload_url', 'files.getUploadURLExternal'), file.body, file.contentType);
    return fileId;
  }

  /** The message's ts, from the answer's file or, once Slack has shared it, from files.info. */
  async function sharedTs(token: string, completed: Answer, fileId: string, channelId: string, onProgress: (() => void) | undefined): Promise<string> {
    const files = Array.isArray(completed.body.files) ? (completed.body.files as unknown[]) : [];
    const answered = shareTsOf(files[0], channelId);
    if (answered) return answered;
    const deadline = Date.now() + sharePollLimitMs;
    try {
      while (Date.now() < deadline) {
        await sleep(sharePollIntervalMs);
        onProgress?.();
        const info = await api.call(token, 'files.info', { form: { file: fileId } });
        const ts = shareTsOf(info.body.file, channelId);
        if (ts) return ts;
      }
    } catch (error) {
      // Slack took the post: whatever the look-up met, sending it again could post it twice.
      throw new SocialOutcomeUnknownError(`Slack took the image and its text, but its message could not be read back: ${messageOf(error)}`);
    }
    // Slack sometimes answers ok and never shares the file: whether the message exists is not known.
    throw new SocialOutcomeUnknownError(`Slack took the image and its text, but had not shared it in the channel after ${sharePollLimitMs / 1000} s`);
  }

  return {
    platform: 'slack',
    declaration: {
      platform: 'slack',
      auth: 'token',
      text: { max: maxTextChars, unit: 'characters' },
      // A message carries up to 10 files; the service sends one image.
      images: { types: ['image/png', 'image/jpeg'], maxBytes: maxFileBytes, maxCount: 10, altText: true },
      // Slack's limit on one file; it plays an MP4 in the channel. No length or shape limits are documented.
      video: { types: ['video/mp4'], maxBytes: maxFileBytes },
      threads: false,
      destination: null,
      retriesNeverDuplicate: {
        guaranteed: false,
        how: "Slack's Web API takes no idempotency key and cannot find a message by a marker of ours: a post whose answer was lost is not sent again; look in the channel before publishing it again.",
      },
    },

    async verify(credentials) {
      const { botToken, channelId } = accountOf(credentials);
      // https://docs.slack.dev/reference/methods/auth.test: whose token, in which workspace.
      const auth = await api.call(botToken, 'auth.test', {});
      const team = http.textField(auth, 'team', 'auth.test');
      const teamId = http.textField(auth, 'team_id', 'auth.test');
      // https://docs.slack.dev/reference/methods/conversations.info: the channel exists, the app sees it and is in it.
      const info = await api.call(botToken, 'conversations.info', { form: { channel: channelId } });
      const channel = { ...info, body: (info.body.channel ?? {}) as Record<string, unknown> };
      const name = http.textField(channel, 'name', 'conversations.info');
      if (channel.body.is_member === false) {
        throw new SlackChannelRefusedError(`The Slack app is not in #${name}: invite it to the channel (/invite), then connect again`);
      }
      return { accountName: `#${name} (${team})`, accountId: `${teamId}/${channelId}`, serverUrl: httpsLinkOf(auth.body.url, 2_048) ?? options.apiUrl };
    },

    async preview(post) {
      const text = messageTextOf(post);
      // The image goes as it is: Slack takes any image file and makes its own previews.
      const image = post.image
        ? { type: post.image.contentType, bytes: post.image.bytes.length, ...(await imageDimensions(post.image.bytes, platformNames.slack)) }
        : null;
      return { text, count: Array.from(text).length, image };
    },

    async publish(credentials, post) {
      const { botToken, channelId } = accountOf(credentials);
      const text = escapeText(messageTextOf(post));
      const upload = uploadOf(post);
      if (!upload) {
        const posted = await api.call(botToken, 'chat.postMessage', { json: { channel: channelId, text }, creates: true });
        return { externalPostId: http.textField(posted, 'ts', 'chat.postMessage') };
      }
      const fileId = await uploadFile(botToken, upload);
      const completed = await api.call(botToken, 'files.completeUploadExternal', {
        json: {
          files: [{ id: fileId, title: upload.filename }],
          channel_id: channelId,
          initial_comment: text,
        },
        creates: true,
      });
      return { externalPostId: await sharedTs(botToken, completed, fileId, channelId, post.onProgress) };
    },
  };
}
