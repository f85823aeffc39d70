import { describe, expect, it } from 'vitest';
import { shortenText } from '../../../src/adapters/social/shorten-text.ts';

// How post text is cut to a platform's limits: between grapheme clusters, never inside a link, tag or mention.

const mastodon = { graphemes: 500, linkGraphemes: 23 };
const bluesky = { graphemes: 300, bytes: 3_000 };
const longLink = `https://example.com/${'a'.repeat(200)}`;

describe('shortenText', () => {
  it('when a platform counts UTF-16 code units (Telegram), then emoji beyond the BMP count 2 and the cut keeps within the count', () => {
    const text = '🌊'.repeat(600);
    expect(shortenText(text, { codePoints: 1_024 })).toBe(text);
    const cut = shortenText(text, { codePoints: 1_024, utf16Units: 1_024 });
    expect(cut).toBe(`${'🌊'.repeat(511)}…`);
    expect(cut.length).toBe(1_023);
  });

  it('when a text fits, then it is returned as it is', () => {
    expect(shortenText('Hello #world https://example.com', bluesky)).toBe('Hello #world https://example.com');
  });

  it('when Mastodon counts each link as 23 characters, then a text with long links that counts under 500 is not cut', () => {
    const text = `${'word '.repeat(80)}${longLink} ${longLink}`;
    expect(Array.from(text).length).toBeGreaterThan(500);
    expect(shortenText(text, mastodon)).toBe(text);
  });

  it('when the cut falls inside a link, then the whole link is left out and the ellipsis stands apart from the text before', () => {
    const text = `${'x'.repeat(290)} ${longLink} tail`;
    expect(shortenText(text, bluesky)).toBe(`${'x'.repeat(290)}…`);
  });

  it('when the cut falls after a whole link, then a space keeps the ellipsis out of the link', () => {
    const text = `${'x'.repeat(200)} https://example.com/abc ${'y'.repeat(100)}`;
    expect(shortenText(text, { graphemes: 226 })).toBe(`${'x'.repeat(200)} https://example.com/abc …`);
  });

  it.each([
    ['hashtag', '#lanzamientodeprimavera'],
    ['mention', '@alice.bsky.social'],
    ['bare domain', 'example.com/spring'],
  ])('when the cut falls inside a %s, then it is kept whole or left out', (_kind, word) => {
    const text = `${'z'.repeat(290)} ${word}`;
    expect(shortenText(text, bluesky)).toBe(`${'z'.repeat(290)}…`);
  });

  it('when the text is one long word, then it is cut between grapheme clusters as before', () => {
    expect(shortenText('👍🏽'.repeat(400), bluesky)).toBe(`${'👍🏽'.repeat(299)}…`);
  });
});
