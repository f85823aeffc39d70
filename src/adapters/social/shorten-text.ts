// Platforms count post text in different units (grapheme clusters, code points, UTF-8 bytes), often more than one
// at once; cutting between grapheme clusters keeps emoji and accented letters whole. Links, hashtags and mentions
// are never cut: half a URL links elsewhere and half a tag is another tag, so a word that is one of them is kept
// whole or left out. Mastodon counts every link as 23 characters, however long it is; X weighs the text (see
// weighted-text.ts).
import { weightedLength } from './weighted-text.ts';

/** The most a text may hold, in each unit a platform counts; a unit left out is not limited. */
export type TextLimits = {
  graphemes?: number;
  codePoints?: number;
  bytes?: number;
  /** What one http(s) link counts for in `graphemes`, when the platform counts links at a fixed length (Mastodon: 23). */
  linkGraphemes?: number;
  /** X's weighted count (weighted-text.ts): CJK and emoji weigh 2, every URL 23. */
  weighted?: number;
  /** UTF-16 code units, JavaScript's `length` (Telegram counts so; an emoji beyond the BMP is 2). */
  utf16Units?: number;
};

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
// A word that a platform may turn into a link, tag or mention: a URL, a bare domain, #tag, $cashtag, @handle.
const wholeWord = /^(?:[a-z][a-z0-9+.-]*:\/\/\S+|[#＃$@]\S+|\S*[a-z0-9]\.[a-z]{2,}\S*)$/i;
const link = /^https?:\/\/\S+$/i;
const ellipsis = '…';

/** Whether a word is one a platform may turn into a link, tag or mention, and so is never cut. */
export function isWholeWord(word: string): boolean {
  return wholeWord.test(word);
}

/** The text as pieces that may not be split: each word that must stay whole, and every other grapheme cluster. */
function piecesOf(text: string): string[] {
  return text.split(/(\s+)/).flatMap((word) => (wholeWord.test(word) ? [word] : Array.from(graphemes.segment(word), ({ segment }) => segment)));
}

function graphemeCountOf(pieces: string[], linkGraphemes: number | undefined): number {
  let count = 0;
  for (const piece of pieces) count += linkGraphemes !== undefined && link.test(piece) ? linkGraphemes : Array.from(graphemes.segment(piece)).length;
  return count;
}

function fits(pieces: string[], { graphemes: maxGraphemes, codePoints, bytes, linkGraphemes, weighted, utf16Units }: TextLimits): boolean {
  const text = pieces.join('');
  if (utf16Units !== undefined && text.length > utf16Units) return false;
  if (maxGraphemes !== undefined && graphemeCountOf(pieces, linkGraphemes) > maxGraphemes) return false;
  if (codePoints !== undefined && Array.from(text).length > codePoints) return false;
  if (weighted !== undefined && weightedLength(text) > weighted) return false;
  return bytes === undefined || Buffer.byteLength(text) <= bytes;
}

/** The text's count in grapheme clusters, every http(s) link counted as `linkGraphemes` when given (Mastodon's count). */
export function graphemeCount(text: string, linkGraphemes?: number): number {
  return graphemeCountOf(piecesOf(text), linkGraphemes);
}

/** The kept pieces with the ellipsis: after a whole word with a space, so that it does not join the link or tag. */
function cutAt(pieces: string[], kept: number): string[] {
  const head = pieces.slice(0, kept);
  while (head.length > 0 && /^\s+$/.test(head.at(-1) ?? '')) head.pop();
  const last = head.at(-1);
  return [...head, last !== undefined && wholeWord.test(last) ? ' ' : '', ellipsis];
}

/** Cuts `text` to what `limits` allow, ending in "…" when it had to cut. */
export function shortenText(text: string, limits: TextLimits): string {
  const pieces = piecesOf(text);
  if (fits(pieces, limits)) return text;
  // Every piece is at least one grapheme cluster, one code point and a weight of one, so no more of them than any
  // of those counts allows can fit (a link counted at a fixed length may count for less, hence no bound from
  // graphemes then).
  const graphemeBound = limits.linkGraphemes === undefined ? (limits.graphemes ?? Infinity) : Infinity;
  // Each piece kept adds to every count, so the longest cut that fits is found by halving (counting X's weight is
  // costly, and a long text would otherwise be counted once per piece).
  let fitting = 0;
  let over = Math.min(pieces.length, graphemeBound, limits.codePoints ?? Infinity, limits.weighted ?? Infinity, limits.utf16Units ?? Infinity) + 1;
  while (over - fitting > 1) {
    const kept = Math.floor((fitting + over) / 2);
    if (fits(cutAt(pieces, kept), limits)) fitting = kept;
    else over = kept;
  }
  return cutAt(pieces, fitting).join('');
}
