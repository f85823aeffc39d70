import type { PlatformDeclaration } from './platform-declaration.ts';
import { isWholeWord, shortenText, type TextLimits } from './shorten-text.ts';
import { countText } from './text-count.ts';

// A text longer than a platform's limit, posted as a thread: cut into parts that each fit the platform's count.
// A part ends where a sentence ends, unless that would leave it less than half as full as it could be, and then
// where a word ends; never inside a word (a link, tag or mention is one word), except a word longer than a whole
// part, which is cut between grapheme clusters. Each part is numbered " (k/n)" when the platform has room: the
// widest number takes at most a tenth of its limit. A text that fits is one part, as it is, unnumbered.

/** The most parts a thread has; the rest of a longer text is shortened into the last, as a single post would be. */
export const maxThreadParts = 25;

type TextDeclaration = PlatformDeclaration['text'];
type Word = { text: string; endsSentence: boolean };

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
// A sentence ends in a full stop, question or exclamation mark or ellipsis (then perhaps a closing quote or
// bracket), or at a line break.
const sentenceEnd = /[.!?…。！？]["'”’»)\]]*$/;

function numbering(part: number, total: number): string {
  return ` (${part}/${total})`;
}

/** The limits shortenText cuts to for `max` units of the platform's count. */
function limitsOf({ unit, linkLength }: TextDeclaration, max: number): TextLimits {
  if (unit === 'weighted') return { weighted: max };
  if (unit === 'characters') return { codePoints: max };
  return { graphemes: max, ...(linkLength === undefined ? {} : { linkGraphemes: linkLength }) };
}

function wordsOf(text: string): Word[] {
  return (text.match(/\S+\s*/g) ?? []).map((word) => ({ text: word, endsSentence: sentenceEnd.test(word.trimEnd()) || /\n/.test(word) }));
}

function joined(words: Word[]): string {
  return words
    .map((word) => word.text)
    .join('')
    .trim();
}

/**
 * The largest n in [low, high] for which `fits(n)` holds, given that it holds for `low` (or `low` itself). Every
 * word or cluster added adds to every count, so this is found by halving: counting is costly, and a long text would
 * otherwise be counted once per word.
 */
function longest(low: number, high: number, fits: (n: number) => boolean): number {
  let fitting = low;
  let over = high + 1;
  while (over - fitting > 1) {
    const middle = Math.floor((fitting + over) / 2);
    if (fits(middle)) fitting = middle;
    else over = middle;
  }
  return fitting;
}

/** The longest run of the word's grapheme clusters that `fits` (at least one), and the rest. */
function cutWord(word: Word, fits: (text: string) => boolean): [string, Word] {
  const clusters = Array.from(graphemes.segment(word.text.trimEnd()), ({ segment }) => segment);
  const head = clusters
    .slice(
      0,
      longest(1, clusters.length, (kept) => fits(clusters.slice(0, kept).join(''))),
    )
    .join('');
  return [head, { ...word, text: word.text.slice(head.length) }];
}

/** The parts, each of which `fits`, in order, without numbering; stops after `maxParts`, the rest left in the last. */
function partsWithin(words: Word[], declaration: TextDeclaration, fits: (text: string) => boolean, maxParts: number): { parts: string[]; rest: Word[] } {
  const parts: string[] = [];
  const queue = [...words];
  while (queue.length > 0 && parts.length < maxParts) {
    const end = fits(joined(queue.slice(0, 1))) ? longest(1, queue.length, (words) => fits(joined(queue.slice(0, words)))) : 0;
    if (end === 0) {
      const [first] = queue;
      // A link, tag or mention longer than a part goes alone, as a single post would (the connector leaves it out).
      if (isWholeWord(first!.text.trimEnd())) {
        parts.push(first!.text.trim());
        queue.shift();
      } else {
        const [head, rest] = cutWord(first!, fits);
        parts.push(head);
        queue[0] = rest;
      }
      continue;
    }
    const filled = (words: number) => countText(joined(queue.slice(0, words)), declaration);
    const lastSentence = queue.slice(0, end).findLastIndex((word) => word.endsSentence);
    const kept = end < queue.length && lastSentence >= 0 && filled(lastSentence + 1) * 2 >= filled(end) ? lastSentence + 1 : end;
    parts.push(joined(queue.slice(0, kept)));
    queue.splice(0, kept);
  }
  return { parts, rest: queue };
}

/** The texts of a thread's parts, in order, and whether the text was longer than maxThreadParts parts take (its end cut). */
export type ThreadParts = { parts: string[]; cut: boolean };

/**
 * What a post of `text` is sent as on a platform: with `thread` on a platform that has threads, its parts (see
 * threadPartsOf); else one post, which the connector shortens as it always has.
 */
export function postPartsOf(text: string, declaration: Pick<PlatformDeclaration, 'text' | 'threads'>, thread: boolean): ThreadParts {
  return thread && declaration.threads ? threadPartsOf(text, declaration.text) : { parts: [text], cut: false };
}

/**
 * The parts a thread of `text` is posted as on a platform that counts text as `declaration` says: one part, the text
 * as it is, when it fits; else at most maxThreadParts parts, each fitting, numbered when the platform has room.
 */
export function threadPartsOf(text: string, declaration: TextDeclaration): ThreadParts {
  const { max } = declaration;
  if (countText(text, declaration) <= max) return { parts: [text], cut: false };
  const words = wordsOf(text);
  const numbered = numbering(maxThreadParts, maxThreadParts).length * 10 <= max;
  // The room kept for the numbering is that of the widest number, " (n/n)"; n is guessed, then corrected once the
  // parts are counted (more digits need more room, which may make more parts).
  let guess = 9;
  for (;;) {
    const room = numbered ? countText(numbering(guess, guess), declaration) : 0;
    const fits = (part: string) => countText(part, declaration) + room <= max;
    const { parts, rest } = partsWithin(words, declaration, fits, maxThreadParts);
    if (rest.length > 0) parts[parts.length - 1] = shortenText(`${parts.at(-1)} ${joined(rest)}`, limitsOf(declaration, max - room));
    if (numbered && String(parts.length).length > String(guess).length) {
      guess = parts.length;
      continue;
    }
    return { parts: numbered ? parts.map((part, index) => `${part}${numbering(index + 1, parts.length)}`) : parts, cut: rest.length > 0 };
  }
}
