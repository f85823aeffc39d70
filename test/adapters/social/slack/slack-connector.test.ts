import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SlackChannelRefusedError } from '../../../../src/adapters/social/slack/slack-api.ts';
import { createSlackConnector } from '../../../../src/adapters/social/slack/slack-connector.ts';
import {
  SocialOutcomeUnknownError,
  SocialRateLimitedError,
  SocialRejectedError,
  SocialUnavailableError,
  type SlackCredentials,
  type SocialConnector,
  type SocialPost,
} from '../../../../src/adapters/social/social-connector.ts';
import { startSlackServer, type SlackServer } from '../../../fakes/slack-server.ts';
import { failureOf } from '../../../support/failure-of.ts';
import { makeImage } from '../../../support/images.ts';
import { makeVideo, socialVideoOf } from '../../../support/video-files.ts';

let slack: SlackServer;
let connector: SocialConnector;
let png: Buffer;

beforeAll(async () => {
  slack = await startSlackServer();
  connector = createSlackConnector({ allowPrivateNetworks: true, apiUrl: slack.url });
  png = await makeImage('png');
});
afterAll(() => slack?.close());
beforeEach(() => {
  slack.sharePolls = 0;
});

function credentials(channelId = 'C0NEWS0001', botToken = slack.botToken): SlackCredentials {
  return { platform: 'slack', botToken, channelId };
}

function postWith(overrides: Partial<SocialPost> = {}): SocialPost {
  return { text: `Spring collection is here ${randomUUID()}`, idempotencyKey: randomUUID(), ...overrides };
}

const messageWith = (ts: string) => slack.messages.find((message) => message.ts === ts);

describe('the Slack connector, verifying', () => {
  it('when the token and channel are good, then the account is the channel in its workspace, shown at the workspace address', async () => {
    await expect(connector.verify(credentials())).resolves.toEqual({
      accountName: '#news (Acme)',
      accountId: 'T0FAKE0001/C0NEWS0001',
      serverUrl: 'https://acme.slack.com/',
    });
  });

  it('when the token is wrong, then Slack rejects it in its own words, and the token is not in them', async () => {
    const error = await failureOf(connector.verify(credentials('C0NEWS0001', 'xoxb-wrong')), SocialRejectedError);
    expect(error).not.toBeInstanceOf(SlackChannelRefusedError);
    expect(error.reason).toBe('Slack rejected the bot token: invalid_auth');
  });

  it('when the channel does not exist or the app is not in it, then the refusal is about the channel', async () => {
    const missing = await failureOf(connector.verify(credentials('C0MISSING1')), SlackChannelRefusedError);
    expect(missing.reason).toContain('channel_not_found');
    const outside = await failureOf(connector.verify(credentials('C0OTHER001')), SlackChannelRefusedError);
    expect(outside.reason).toContain('not in #other');
  });
});

describe('the Slack connector, publishing', () => {
  it('when the bot token lacks a scope the post needs, then Slack refuses it naming the scope, and nothing is posted', async () => {
    const before = slack.messages.length;
    slack.botScopes.delete('files:write');
    try {
      const error = await failureOf(
        connector.publish(credentials(), postWith({ image: { bytes: png, contentType: 'image/png', alt: 'Three boats' } })),
        SocialRejectedError,
      );
      expect(error.reason).toBe('Slack rejected the bot token: missing_scope: needs the scope files:write');
      expect(slack.messages).toHaveLength(before);
    } finally {
      slack.botScopes.add('files:write');
    }
  });

  it('when the post is text, then chat.postMessage posts it, escaped as Slack asks, and its ts is the post id', async () => {
    const published = await connector.publish(credentials(), postWith({ text: 'Fish & chips <today>' }));
    expect(messageWith(published.externalPostId)).toMatchObject({ channel: 'C0NEWS0001', text: 'Fish &amp; chips &lt;today&gt;', files: [] });
  });

  it('when the post has a video, then the file is streamed to the upload URL with its length and description, and shared with the text', async () => {
    const mp4 = makeVideo();
    const text = `Boats moving ${randomUUID()}`;
    const published = await connector.publish(credentials(), postWith({ text, video: socialVideoOf(mp4, { alt: 'Boats leaving' }) }));
    const message = messageWith(published.externalPostId);
    expect(message).toMatchObject({ channel: 'C0NEWS0001', text });
    expect(message!.files[0]).toMatchObject({
      filename: 'video.mp4',
      title: 'video.mp4',
      altText: 'Boats leaving',
      contentType: 'video/mp4',
      length: mp4.length,
    });
    expect(message!.files[0]!.bytes!.equals(mp4)).toBe(true);
  });

  it('when the post has an image, then it is uploaded with its description and shared in the channel with the text, in one message', async () => {
    const text = `Boats at night ${randomUUID()}`;
    const published = await connector.publish(credentials(), postWith({ text, image: { bytes: png, contentType: 'image/png', alt: 'Three boats' } }));
    const message = messageWith(published.externalPostId);
    expect(message).toMatchObject({ channel: 'C0NEWS0001', text });
    expect(message!.files).toHaveLength(1);
    expect(message!.files[0]).toMatchObject({ filename: 'image.png', altText: 'Three boats', contentType: 'image/png' });
    expect(message!.files[0]!.bytes!.equals(png)).toBe(true);
    // The upload URL got the bytes and no token.
    const uploadRequest = slack.requests.find((request) => request.path.startsWith('/upload/'));
    expect(uploadRequest?.headers.authorization).toBeUndefined();
  });

  it('when Slack shares the file only later, then the message ts is read from files.info once it shows', async () => {
    slack.sharePolls = 2;
    const progress: number[] = [];
    const published = await connector.publish(
      credentials('G0TEAM0001'),
      postWith({ image: { bytes: png, contentType: 'image/png', alt: '' }, onProgress: () => progress.push(1) }),
    );
    expect(messageWith(published.externalPostId)?.channel).toBe('G0TEAM0001');
    expect(progress.length).toBeGreaterThanOrEqual(3);
  });

  it('when Slack answers 429, then the wait is its Retry-After', async () => {
    slack.rateLimitOnce('chat.postMessage', 7);
    const error = await failureOf(connector.publish(credentials(), postWith()), SocialRateLimitedError);
    expect(error.retryAfterMs).toBe(7_000);
  });

  it('when Slack refuses the post, then the refusal is final and carries its error code', async () => {
    slack.refuseOnce('chat.postMessage', 'is_archived');
    const error = await failureOf(connector.publish(credentials(), postWith()), SocialRejectedError);
    expect(error.reason).toBe('Slack refused the chat.postMessage request: is_archived');
  });

  it('when Slack has trouble of its own, then it is an outage, and after a post it may have made part way, an unknown outcome', async () => {
    slack.refuseOnce('files.getUploadURLExternal', 'service_unavailable');
    await failureOf(connector.publish(credentials(), postWith({ image: { bytes: png, contentType: 'image/png', alt: '' } })), SocialUnavailableError);
    slack.refuseOnce('chat.postMessage', 'internal_error');
    await failureOf(connector.publish(credentials(), postWith()), SocialOutcomeUnknownError);
  });

  it('when the answer to completeUploadExternal is lost after Slack shared the file, then the outcome is unknown', async () => {
    slack.script('files.completeUploadExternal', [{ dropped: true }]);
    const before = slack.messages.length;
    await failureOf(connector.publish(credentials(), postWith({ image: { bytes: png, contentType: 'image/png', alt: '' } })), SocialOutcomeUnknownError);
    expect(slack.messages).toHaveLength(before + 1);
  });

  it('when the text is longer than 4,000 characters, then it is cut there, in the preview and the post alike', async () => {
    const long = 'word '.repeat(1_000);
    const preview = await connector.preview({ text: long });
    expect(preview.count).toBeLessThanOrEqual(4_000);
    const published = await connector.publish(credentials(), postWith({ text: long }));
    expect(messageWith(published.externalPostId)?.text).toBe(preview.text);
  });
});
