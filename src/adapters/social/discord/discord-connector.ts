import { imageDimensions } from '../image-dimensions.ts';
import {
  createPlatformHttp,
  encodeMultipart,
  imageFileName,
  streamedMultipart,
  videoFile,
  type Multipart,
  type PlatformHttpOptions,
} from '../platform-http.ts';
import { shortenText } from '../shorten-text.ts';
import {
  SocialRejectedError,
  type SocialConnector,
  type SocialCredentials,
  type SocialPost,
  type SocialPostDraft,
  type SocialVideo,
} from '../social-connector.ts';
import { discordFailureOf, discordWebhookOf, type DiscordWebhook } from './discord-webhook.ts';
import { platformNames } from '../social-platforms.ts';

// Discord through a channel's webhook: https://discord.com/developers/docs/resources/webhook#execute-webhook with
// `?wait=true`, so the answer is the message made (its id kept). With an image or a video the request is multipart:
// the message as `payload_json` (https://discord.com/developers/docs/reference#uploading-files), its attachment
// described by the alt text, then the file as `files[0]`. Mentions in the text are not acted on (`allowed_mentions`
// empty): a post's generated text must not ping @everyone. One attempt per call, as Temporal's retry policy owns
// retrying. The check of a connection reads the webhook (https://discord.com/developers/docs/resources/webhook#get-webhook-with-token).

export type DiscordConnectorOptions = PlatformHttpOptions & {
  /** Discord's API base URL (DISCORD_API_URL): https://discord.com/api. */
  apiUrl: string;
};

// A message's content; Discord counts characters (the cut keeps UTF-16 code units within it too, to be safe).
const discordContentMax = 2_000;
// An attachment's description (alt text).
const maxDescriptionChars = 1_024;
// Without boosts a server takes files up to 10 MiB.
const maxFileBytes = 10 * 1024 * 1024;
const noMentions = { parse: [] };

type Image = NonNullable<SocialPost['image']>;

function webhookOf(credentials: SocialCredentials, apiUrl: string): DiscordWebhook {
  if (credentials.platform !== 'discord') throw new SocialRejectedError(`the Discord connector cannot use ${credentials.platform} credentials`);
  return discordWebhookOf(credentials.webhookUrl, apiUrl);
}

/** The message content Discord is sent. */
function discordContentOf(post: SocialPostDraft): string {
  return shortenText(post.text, { codePoints: discordContentMax, utf16Units: discordContentMax });
}

// https://discord.com/developers/docs/resources/webhook#execute-webhook: a forum or media channel's webhook must name
// the thread a message starts (`thread_name`, at most 100 characters), and a text channel's must not. A webhook
// URL does not say which its channel is, so a message goes without one first: a forum refuses it (220001) having
// made nothing, and it goes again as a new thread named after the post's first line.
const forumNeedsThread = 220001;
const threadNameMax = 100;

/** The thread a message starts in a forum: the post's first line, shortened, or a plain name for a post without text. */
function threadNameOf(content: string): string {
  const firstLine =
    content
      .split('\n')
      .find((line) => line.trim())
      ?.trim() ?? '';
  return firstLine ? shortenText(firstLine, { codePoints: threadNameMax, utf16Units: threadNameMax }) : 'New post';
}

/** The message with its one attachment described (by the alt text), as `payload_json`. */
function payloadWith(payload: Record<string, unknown>, filename: string, alt: string): string {
  const description = alt ? shortenText(alt, { codePoints: maxDescriptionChars, utf16Units: maxDescriptionChars }) : undefined;
  return JSON.stringify({ ...payload, attachments: [{ id: '0', filename, ...(description ? { description } : {}) }] });
}

function imageForm(payload: Record<string, unknown>, { bytes, contentType, alt }: Image): Promise<Multipart> {
  const filename = imageFileName(contentType);
  const form = new FormData();
  form.set('payload_json', payloadWith(payload, filename, alt));
  form.set('files[0]', new Blob([bytes], { type: contentType }), filename);
  return encodeMultipart(form);
}

/** The video as the message's attachment, streamed: Discord plays an MP4 attachment inline. */
function videoForm(payload: Record<string, unknown>, video: SocialVideo): Multipart {
  const file = videoFile('files[0]', video);
  return streamedMultipart([['payload_json', payloadWith(payload, file.fileName, video.alt)]], file);
}

/** The connector for Discord webhooks. */
export function createDiscordConnector(options: DiscordConnectorOptions): SocialConnector {
  const http = createPlatformHttp(platformNames.discord, options);

  return {
    platform: 'discord',
    declaration: {
      platform: 'discord',
      auth: 'token',
      text: { max: discordContentMax, unit: 'characters' },
      images: { types: ['image/png', 'image/jpeg'], maxBytes: maxFileBytes, maxCount: 10, altText: true },
      // An attachment's limit, as for an image; Discord documents no length or shape limits.
      video: { types: ['video/mp4'], maxBytes: maxFileBytes },
      threads: false,
      destination: null,
      retriesNeverDuplicate: {
        guaranteed: false,
        how: "A webhook takes no idempotency key and cannot list the channel's messages: a message whose answer was lost is not sent again, and the target fails asking you to check the channel.",
      },
    },

    async verify(credentials) {
      const webhook = webhookOf(credentials, options.apiUrl);
      const answer = await http.request({ method: 'GET', url: new URL(webhook.url), headers: { accept: 'application/json' } });
      if (answer.status !== 200) throw discordFailureOf(answer, 'the webhook', webhook);
      // The answer also holds the token: only the name and id are kept.
      const name = typeof answer.body.name === 'string' && answer.body.name ? answer.body.name : `webhook ${webhook.id}`;
      return { accountName: name, accountId: http.textField(answer, 'id', 'the webhook'), serverUrl: options.apiUrl };
    },

    async preview(post) {
      const content = discordContentOf(post);
      const image = post.image
        ? { type: post.image.contentType, bytes: post.image.bytes.length, ...(await imageDimensions(post.image.bytes, platformNames.discord)) }
        : null;
      return { text: content, count: Array.from(content).length, image };
    },

    async publish(credentials, post) {
      const webhook = webhookOf(credentials, options.apiUrl);
      const content = discordContentOf(post);
      const url = new URL(webhook.url);
      url.searchParams.set('wait', 'true');
      const send = async (payload: Record<string, unknown>) => {
        const form = post.video ? videoForm(payload, post.video) : post.image ? await imageForm(payload, post.image) : undefined;
        return http.request({
          method: 'POST',
          url,
          headers: { accept: 'application/json', ...(form ? { 'content-type': form.contentType } : {}) },
          ...(form ? { body: form.body } : { json: payload }),
          creates: true,
        });
      };
      const message = { content, allowed_mentions: noMentions };
      let answer = await send(message);
      if (answer.status === 400 && answer.body.code === forumNeedsThread) answer = await send({ ...message, thread_name: threadNameOf(content) });
      if (answer.status !== 200) throw discordFailureOf(answer, 'the message', webhook);
      return { externalPostId: http.textField(answer, 'id', 'the message') };
    },
  };
}
