import { shortenText } from '../shorten-text.ts';

// Threads' limit on a post's text (https://developers.facebook.com/docs/threads/posts#limitations): 500 characters,
// where an emoji counts as many as its UTF-8 bytes (the page links grapheme-splitter, so a character is a grapheme
// cluster). A flag or a family emoji thus counts 8 to 25; an accented letter counts one.

export const threadsTextMax = 500;

// https://developers.facebook.com/docs/threads/posts/text-attachments: "The number of links is restricted to 5 or
// less"; since December 22, 2025 a post with more fails at container creation (THREADS_API__LINK_LIMIT_EXCEEDED).
export const threadsMaxLinks = 5;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
// An emoji cluster: a pictograph, a flag (regional indicators) or a keycap (1️⃣).
const emoji = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;

function weightOf(grapheme: string): number {
  return emoji.test(grapheme) ? Buffer.byteLength(grapheme) : 1;
}

/** The text's length as Threads counts it. */
export function threadsTextCount(text: string): number {
  let count = 0;
  for (const { segment } of graphemes.segment(text)) count += weightOf(segment);
  return count;
}

/** `text` cut to Threads' limit, ending in "…" when it had to cut. */
export function threadsText(text: string): string {
  const cut = shortenText(text, { graphemes: threadsTextMax });
  if (threadsTextCount(cut) <= threadsTextMax) return cut;
  // Emoji count for more than the one grapheme shortenText counts them as. It keeps a start of the text of at most
  // the graphemes it is allowed, less one for the ellipsis: allowing it the longest start that counts at most 499
  // leaves room for the ellipsis within 500.
  let fitting = 0;
  let count = 0;
  for (const { segment } of graphemes.segment(text)) {
    count += weightOf(segment);
    if (count > threadsTextMax - 1) break;
    fitting += 1;
  }
  return shortenText(text, { graphemes: fitting + 1 });
}
