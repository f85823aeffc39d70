// Platforms count post text in different units (grapheme clusters, code points, UTF-8 bytes), often more than one
// at once; cutting between grapheme clusters keeps emoji and accented letters whole.

/** The most a text may hold, in each unit a platform counts; a unit left out is not limited. */
export type TextLimits = { graphemes?: number; codePoints?: number; bytes?: number };

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function fits(text: string, { graphemes: maxGraphemes, codePoints, bytes }: TextLimits): boolean {
  if (maxGraphemes !== undefined && Array.from(graphemes.segment(text)).length > maxGraphemes) return false;
  if (codePoints !== undefined && Array.from(text).length > codePoints) return false;
  return bytes === undefined || Buffer.byteLength(text) <= bytes;
}

/** Cuts `text` to what `limits` allow, ending in "…" when it had to cut. */
export function shortenText(text: string, limits: TextLimits): string {
  if (fits(text, limits)) return text;
  const pieces = Array.from(graphemes.segment(text), ({ segment }) => segment);
  // Every grapheme cluster is at least one code point, so no more of them than either count allows can fit.
  let kept = Math.min(pieces.length, limits.graphemes ?? Infinity, limits.codePoints ?? Infinity);
  while (kept > 0 && !fits(`${pieces.slice(0, kept).join('').trimEnd()}…`, limits)) kept -= 1;
  return `${pieces.slice(0, kept).join('').trimEnd()}…`;
}
