import { describe, expect, it } from 'vitest';
import { shortenText } from '../../../src/adapters/social/shorten-text.ts';
import { weightedLength, xMaxWeightedLength } from '../../../src/adapters/social/weighted-text.ts';

// X's weighted count (twitter-text's v3 rules) and shortening to it.

const x = { weighted: xMaxWeightedLength };

describe('weightedLength', () => {
  it('when the text is Latin, then each character weighs 1', () => {
    expect(weightedLength('Harbour lights, à la carte!')).toBe(27);
  });

  it('when an accent is written as a combining mark, then the text is counted as its NFC form', () => {
    expect(weightedLength('cafe\u0301')).toBe(weightedLength('café'));
    expect(weightedLength('café')).toBe(4);
  });

  it('when the text is Chinese, Japanese or Korean, then each character weighs 2', () => {
    expect(weightedLength('港の灯り')).toBe(8);
    expect(weightedLength('항구')).toBe(4);
  });

  it('when the text holds URLs, then each weighs 23 whatever its length', () => {
    expect(weightedLength('https://example.com')).toBe(23);
    expect(weightedLength(`see https://example.com/${'a'.repeat(200)} and example.org`)).toBe(4 + 23 + 5 + 23);
  });

  it('when the text holds emoji, then each weighs 2, a sequence of several code points too', () => {
    expect(weightedLength('👍')).toBe(2);
    expect(weightedLength('👍🏽')).toBe(2);
    expect(weightedLength('👩‍👩‍👧‍👦')).toBe(2);
  });
});

describe('shortenText to X weighted limit', () => {
  it('when a text weighs 280 or less, then it is kept whole', () => {
    const text = `${'a'.repeat(256)} https://example.com/${'b'.repeat(100)}`;
    expect(weightedLength(text)).toBe(xMaxWeightedLength);
    expect(shortenText(text, x)).toBe(text);
  });

  it('when Chinese text weighs more than 280, then it is cut to 140 characters with the ellipsis counted', () => {
    const shortened = shortenText('灯'.repeat(200), x);
    expect(shortened).toBe(`${'灯'.repeat(139)}…`);
    expect(weightedLength(shortened)).toBeLessThanOrEqual(xMaxWeightedLength);
  });

  it('when the cut falls inside a URL, then the URL is left out whole', () => {
    const shortened = shortenText(`${'a'.repeat(270)} https://example.com/spring`, x);
    expect(shortened).toBe(`${'a'.repeat(270)}…`);
  });

  it('when a long text is shortened, then the result weighs as much as fits', () => {
    const shortened = shortenText('word '.repeat(1000), x);
    expect(weightedLength(shortened)).toBeLessThanOrEqual(xMaxWeightedLength);
    expect(weightedLength(shortened)).toBeGreaterThan(xMaxWeightedLength - 6);
  });
});
