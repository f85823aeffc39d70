// X's weighted count of a post's text (twitter-text's v3 configuration): text is NFC-normalised; a code point in
// the Latin, general punctuation and similar ranges below weighs 1, any other 2; an emoji weighs 2 whatever code
// points it is made of; a link weighs 23 (X wraps every link in a t.co link of that length). A post may weigh 280.
// Placeholder for the catalogue lane's counter (the maintained `twitter-text` rules), which replaces this file at
// merge: x-connector.ts only imports `weightedLength` and `shortenWeighted`.

export const maxWeightedLength = 280;
const linkWeight = 23;
const lightRanges: Array<[number, number]> = [
  [0, 4351],
  [8192, 8205],
  [8208, 8223],
  [8242, 8247],
];
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const emoji = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;
const link = /^https?:\/\/\S+$/i;
const ellipsis = '…';

function codePointWeight(codePoint: number): number {
  return lightRanges.some(([from, to]) => codePoint >= from && codePoint <= to) ? 1 : 2;
}

function pieceWeight(piece: string): number {
  if (link.test(piece)) return linkWeight;
  let weight = 0;
  for (const { segment } of graphemes.segment(piece)) {
    weight += emoji.test(segment) ? 2 : Array.from(segment).reduce((sum, char) => sum + codePointWeight(char.codePointAt(0) ?? 0), 0);
  }
  return weight;
}

/** Links whole, every other grapheme cluster on its own. */
function piecesOf(text: string): string[] {
  return text
    .normalize('NFC')
    .split(/(\s+)/)
    .flatMap((word) => (link.test(word) ? [word] : Array.from(graphemes.segment(word), ({ segment }) => segment)));
}

/** The text's weight as X counts it. */
export function weightedLength(text: string): number {
  return piecesOf(text).reduce((sum, piece) => sum + pieceWeight(piece), 0);
}

/** `text` cut to weigh at most `max`, ending in "…" when it had to cut; links are kept whole or left out. */
export function shortenWeighted(text: string, max = maxWeightedLength): string {
  const normalized = text.normalize('NFC');
  if (weightedLength(normalized) <= max) return normalized;
  const budget = max - pieceWeight(ellipsis);
  const kept: string[] = [];
  let weight = 0;
  for (const piece of piecesOf(normalized)) {
    const next = pieceWeight(piece);
    if (weight + next > budget) break;
    kept.push(piece);
    weight += next;
  }
  while (kept.length > 0 && /^\s+$/.test(kept.at(-1) ?? '')) kept.pop();
  // After a link, a space, so that the ellipsis does not become part of it.
  const last = kept.at(-1);
  return `${kept.join('')}${last !== undefined && link.test(last) && weight + 1 <= budget ? ' ' : ''}${ellipsis}`;
}
