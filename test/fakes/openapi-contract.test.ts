import { describe, expect, it } from 'vitest';
import { loadOpenApiContract } from './openapi-contract.ts';

// The fakes' check of our requests against the platforms' own API descriptions: it must refuse what the description
// refuses, or a fake that validates would pass anything.

const fixture = (platform: string) => new URL(`../fixtures/platform-apis/${platform}/openapi.json`, import.meta.url).pathname;
const none = new URLSearchParams();

describe("the fakes' check against a platform's API description", () => {
  const x = loadOpenApiContract(fixture('x'));
  const discord = loadOpenApiContract(fixture('discord'));
  const pinterest = loadOpenApiContract(fixture('pinterest'));

  it('when an X one-shot upload names media_type, then it is refused naming the field, and accepted without it', () => {
    const image = { media: Buffer.from('png').toString('base64'), media_category: 'tweet_image' };
    expect(x.problemsOf({ method: 'POST', path: '/2/media/upload', query: none, json: { ...image, media_type: 'image/png' } })).toEqual([
      'body must NOT have additional properties (media_type)',
    ]);
    expect(x.problemsOf({ method: 'POST', path: '/2/media/upload', query: none, json: image })).toEqual([]);
  });

  it('when a post lacks a required field, a query parameter breaks its schema, or the operation does not exist, then each is named', () => {
    expect(x.problemsOf({ method: 'POST', path: '/2/tweets', query: none, json: { text: 'hi', media: {} } })).toEqual([
      "body/media must have required property 'media_ids'",
    ]);
    const tooMany = new URLSearchParams({ max_results: '500' });
    expect(x.problemsOf({ method: 'GET', path: '/2/users/42/tweets', query: tooMany, json: undefined })).toEqual([
      'query parameter max_results must be <= 100',
    ]);
    expect(x.problemsOf({ method: 'DELETE', path: '/2/users/me', query: none, json: undefined })).toEqual([
      'DELETE /2/users/me is no operation of the API description',
    ]);
  });

  it("when a Discord webhook message names an attachment by a number, or its content is over 2,000 characters, then Discord's description refuses it", () => {
    const path = '/webhooks/123/token';
    expect(discord.problemsOf({ method: 'POST', path, query: none, json: { content: 'hi', attachments: [{ id: '0', filename: 'image.png' }] } })).toEqual([]);
    expect(discord.problemsOf({ method: 'POST', path, query: none, json: { content: 'hi', attachments: [{ id: 0 }] } })).toContain(
      'body/attachments/0/id must be string',
    );
    expect(discord.problemsOf({ method: 'POST', path, query: none, json: { content: 'x'.repeat(2001) } })).toContain(
      'body/content must NOT have more than 2000 characters',
    );
  });

  it("when a Pin's title is over 100 characters or its board id is not a number, then Pinterest's description refuses it", () => {
    const pin = {
      board_id: '549755885175',
      title: 'Harbour lights',
      description: 'Boats at night',
      alt_text: 'Boats in a harbour at dusk',
      media_source: { source_type: 'image_base64', content_type: 'image/png', data: Buffer.from('png').toString('base64') },
    };
    expect(pinterest.problemsOf({ method: 'POST', path: '/pins', query: none, json: pin })).toEqual([]);
    expect(pinterest.problemsOf({ method: 'POST', path: '/pins', query: none, json: { ...pin, title: 'x'.repeat(101), board_id: 'harbour' } })).toEqual([
      'body/board_id must match pattern "^\\d+$"',
      'body/title must NOT have more than 100 characters',
    ]);
  });
});
