import { describe, expect, it } from 'vitest';
import type { PlatformDeclaration } from '../../../src/adapters/social/platform-declaration.ts';
import { countText } from '../../../src/adapters/social/text-count.ts';
import { maxThreadParts, postPartsOf, threadPartsOf } from '../../../src/adapters/social/thread-parts.ts';

// How a long text is cut into the parts of a thread: each fits the platform's count, numbered when there is room,
// cut at sentence ends (else word ends), never inside a link, tag or mention.

const mastodon: PlatformDeclaration['text'] = { max: 500, unit: 'graphemes', linkLength: 23 };
const bluesky: PlatformDeclaration['text'] = { max: 300, unit: 'graphemes' };
const x: PlatformDeclaration['text'] = { max: 280, unit: 'weighted' };
const sentences = [
  'The harbour wakes before the town does.',
  'Fishing boats slip out at four, their lights strung across the water like a second shoreline.',
  'By six the market is loud with gulls and prices, and the first coffee is poured at the quay.',
  'Tourists arrive later, when the boats are already back and the nets hang drying in the sun.',
];
const long = Array.from({ length: 12 }, (_, index) => sentences[index % sentences.length]).join(' ');
const unnumbered = (part: string) => part.replace(/ \(\d+\/\d+\)$/, '');

describe('threadPartsOf', () => {
  it('when the text fits, then it is one part, as it is, unnumbered', () => {
    expect(threadPartsOf('Harbour lights tonight.', bluesky)).toEqual({ parts: ['Harbour lights tonight.'], cut: false });
  });

  it.each([
    ['Mastodon', mastodon],
    ['Bluesky', bluesky],
    ['X', x],
  ] as const)('when a long text is cut for %s, then every part fits, is numbered k/n, and together they are the text', (_name, declaration) => {
    const { parts, cut } = threadPartsOf(long, declaration);
    expect(cut).toBe(false);
    expect(parts.length).toBeGreaterThan(1);
    for (const [index, part] of parts.entries()) {
      expect(countText(part, declaration)).toBeLessThanOrEqual(declaration.max);
      expect(part.endsWith(` (${index + 1}/${parts.length})`)).toBe(true);
    }
    expect(parts.map(unnumbered).join(' ')).toBe(long);
  });

  it('when a sentence ends in the second half of a part, then the part ends there', () => {
    const { parts } = threadPartsOf(long, bluesky);
    for (const part of parts.slice(0, -1)) expect(unnumbered(part)).toMatch(/\.$/);
  });

  it('when the text has no sentence end, then parts end between words, and links, tags and mentions stay whole', () => {
    const words = Array.from({ length: 120 }, (_, index) =>
      index % 10 === 0 ? `https://example.com/page/${index}` : index % 7 === 0 ? `#tag${index}` : `word${index}`,
    );
    const text = words.join(' ');
    const { parts } = threadPartsOf(text, bluesky);
    expect(parts.map(unnumbered).join(' ')).toBe(text);
    for (const part of parts) for (const word of unnumbered(part).split(' ')) expect(words).toContain(word);
  });

  it('when a word is longer than a part, then it is cut between grapheme clusters', () => {
    const text = `Start ${'é'.repeat(700)} end`;
    const { parts } = threadPartsOf(text, bluesky);
    for (const part of parts) expect(countText(part, bluesky)).toBeLessThanOrEqual(300);
    expect(parts.map(unnumbered).join('').replaceAll(' ', '')).toBe(text.replaceAll(' ', ''));
  });

  it('when the text needs more parts than a thread has, then it has the most, the last one cut with an ellipsis', () => {
    const { parts, cut } = threadPartsOf(long.repeat(6), { max: 100, unit: 'characters' });
    expect(cut).toBe(true);
    expect(parts).toHaveLength(maxThreadParts);
    expect(parts.at(-1)).toMatch(/… \(25\/25\)$/);
    for (const part of parts) expect(countText(part, { max: 100, unit: 'characters' })).toBeLessThanOrEqual(100);
  });

  it('when the numbering would take more than a tenth of the limit, then the parts are not numbered', () => {
    const { parts } = threadPartsOf(long, { max: 70, unit: 'characters' });
    expect(parts.map(unnumbered)).toEqual(parts);
  });
});

describe('postPartsOf', () => {
  it('when the platform has no threads, then the text is one post, left to the connector to shorten', () => {
    expect(postPartsOf(long, { text: bluesky, threads: false }, true)).toEqual({ parts: [long], cut: false });
  });

  it('when no thread is asked for, then the text is one post', () => {
    expect(postPartsOf(long, { text: bluesky, threads: true }, false)).toEqual({ parts: [long], cut: false });
  });
});
