import { shortenText } from './shorten-text.ts';

// Threads' limit on a post's text (https://developers.facebook.com/docs/threads/posts#limitations): 500 characters,
// where an emoji counts as many as its UTF-8 bytes (the page links grapheme-splitter, so a character is a grapheme
// cluster). A flag or a family emoji thus counts 8 to 25; an accented letter counts one.

export const threadsTextMax = 500;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
// An emoji cluster: a pictograph, a flag (regional indicators) or a keycap (1️⃣).
const emoji = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;

/** The text's length as Threads counts it. */
export function threadsTextCount(text: string): number {
  let count = 0;
  for (const { segment } of graphemes.segment(text)) count += emoji.test(segment) ? Buffer.byteLength(segment) : 1;
  return count;
}

/** `text` cut to Threads' limit, ending in "…" when it had to cut. */
export function threadsText(text: string): string {
  const whole = shortenText(text, { graphemes: threadsTextMax });
  if (threadsTextCount(whole) <= threadsTextMax) return whole;
  // Emoji count for more than the one grapheme shortenText counts them as: the most graphemes that fit, by halving.
  let [fits, tooMany] = [0, threadsTextMax];
  while (tooMany - fits > 1) {
    const middle = Math.floor((fits + tooMany) / 2);
    if (threadsTextCount(shortenText(text, { graphemes: middle })) <= threadsTextMax) fits = middle;
    else tooMany = middle;
  }
  return shortenText(text, { graphemes: fits });
}
