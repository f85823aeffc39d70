import { shortenText } from '../shorten-text.ts';

// A post's commentary is LinkedIn's "little" text format
// (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/little-text-format), where
// | { } @ [ ] ( ) < > # \ * _ ~ are reserved: `@[Name](urn:li:person:…)` is a mention, `#tag` a hashtag,
// `{hashtag|\#|tag}` a template. A reserved character left bare is read as markup, and LinkedIn cuts the post at the
// first one it cannot parse, while still answering 201. Our text is plain, so each one is escaped with a backslash,
// except in two places where the markup is what the author meant: a #hashtag stays a hashtag, and a link is left whole
// so that LinkedIn still makes it a link.

/** LinkedIn takes up to 3,000 characters of commentary, counted in UTF-16 code units, as Java strings count. */
export const maxCommentaryChars = 3_000;

const reserved = /[\\|{}@[\]()<>#*_~]/g;
// A link, or a hashtag at the start of a word: kept as it is.
const keptWhole = /https?:\/\/\S+|(?<=^|\s)#[\p{L}\p{N}]+/gu;

/** `text` as little text that reads as `text`, its links and hashtags kept. */
export function escapeLittleText(text: string): string {
  let escaped = '';
  let from = 0;
  for (const match of text.matchAll(keptWhole)) {
    escaped += text.slice(from, match.index).replace(reserved, '\\$&') + match[0];
    from = match.index + match[0].length;
  }
  return escaped + text.slice(from).replace(reserved, '\\$&');
}

export type LinkedInCommentary = {
  /** The text as readers will see it, shortened to fit. */
  text: string;
  /** What is sent: `text` as little text. */
  commentary: string;
  /** The commentary's length as LinkedIn counts it (escapes included, as it counts what it receives). */
  count: number;
};

/** The commentary for `text`, cut (ending in "…") so that its escaped form fits LinkedIn's limit. */
export function linkedInCommentaryOf(text: string): LinkedInCommentary {
  // Escapes lengthen the text, and a code point may be two UTF-16 units: cut to fewer code points in proportion to
  // what the escaped text is over, until it fits. Each round cuts at least one more, so it ends.
  let codePoints = Math.min(maxCommentaryChars, Array.from(text).length);
  for (;;) {
    const shortened = shortenText(text, { codePoints });
    const commentary = escapeLittleText(shortened);
    if (commentary.length <= maxCommentaryChars) return { text: shortened, commentary, count: commentary.length };
    codePoints = Math.max(0, Math.min(codePoints - 1, Math.floor((codePoints * maxCommentaryChars) / commentary.length)));
  }
}
