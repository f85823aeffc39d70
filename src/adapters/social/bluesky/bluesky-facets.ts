import tlds from 'tlds' with { type: 'json' };

// Bluesky shows links, hashtags and mentions only where a post's `facets` say so: each facet names a range of the
// text in UTF-8 bytes and what it is (app.bsky.richtext.facet). Found by Bluesky's own rules, ported from
// @atproto/api's detectFacets (0.20): links with a scheme, or bare domains under a known top-level domain, without
// trailing punctuation; #tags that are not purely numeric (`#1` stays text), without trailing punctuation, at
// most 64 graphemes; $cashtags (as tags); @handles, which are mentions only once resolved to a DID. That library
// itself is not used: it takes over a second to import, in the api and every worker.

export type Facet = { index: { byteStart: number; byteEnd: number }; features: [Feature] };
type Feature =
  | { $type: 'app.bsky.richtext.facet#link'; uri: string }
  | { $type: 'app.bsky.richtext.facet#tag'; tag: string }
  | { $type: 'app.bsky.richtext.facet#mention'; did: string };

/** A handle's DID, or undefined when it does not resolve. */
export type ResolveHandle = (handle: string) => Promise<string | undefined>;

const mentionPattern = /(^|\s|\()(@)([a-zA-Z0-9.-]+)(\b)/g;
const urlPattern = /(^|\s|\()((https?:\/\/[\S]+)|((?<domain>[a-z][a-z0-9]*(\.[a-z0-9]+)+)[\S]*))/gim;
const trailingPunctuation = /\p{P}+$/gu;
// Zero-width and invisible characters end a tag as whitespace does; a tag needs one character that is neither a
// digit nor punctuation. Bluesky's pattern, as is.
const tagPattern =
  // eslint-disable-next-line no-misleading-character-class
  /(^|\s)[#＃]((?!\ufe0f)[^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]*[^\d\s\p{P}\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]+[^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]*)?/gu;
const cashtagPattern = /(^|\s|\()\$([A-Za-z][A-Za-z0-9]{0,4})(?=\s|$|[.,;:!?)"'\u2019])/gu;
const maxTagGraphemes = 64;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function isKnownDomain(domain: string): boolean {
  return tlds.some((tld) => domain.endsWith(`.${tld}`));
}

type Found = { start: number; end: number; feature: Feature };

function mentionsIn(text: string): Found[] {
  const found: Found[] = [];
  for (const match of text.matchAll(mentionPattern)) {
    const handle = match[3] ?? '';
    // `.test` is the handle domain of development servers.
    if (!isKnownDomain(handle) && !handle.endsWith('.test')) continue;
    const start = match.index + (match[1] ?? '').length;
    found.push({ start, end: start + 1 + handle.length, feature: { $type: 'app.bsky.richtext.facet#mention', did: handle } });
  }
  return found;
}

function linksIn(text: string): Found[] {
  const found: Found[] = [];
  for (const match of text.matchAll(urlPattern)) {
    const written = match[2] ?? '';
    let uri = written;
    if (!uri.startsWith('http')) {
      const domain = match.groups?.domain;
      if (!domain || !isKnownDomain(domain)) continue;
      uri = `https://${uri}`;
    }
    const start = match.index + (match[1] ?? '').length;
    let end = start + written.length;
    if (/[.,;:!?]$/.test(uri)) {
      uri = uri.slice(0, -1);
      end -= 1;
    }
    if (uri.endsWith(')') && !uri.includes('(')) {
      uri = uri.slice(0, -1);
      end -= 1;
    }
    found.push({ start, end, feature: { $type: 'app.bsky.richtext.facet#link', uri } });
  }
  return found;
}

function tagsIn(text: string): Found[] {
  const found: Found[] = [];
  for (const match of text.matchAll(tagPattern)) {
    const tag = (match[2] ?? '').trim().replace(trailingPunctuation, '');
    if (tag.length === 0 || Array.from(graphemes.segment(tag)).length > maxTagGraphemes) continue;
    const start = match.index + (match[1] ?? '').length;
    found.push({ start, end: start + 1 + tag.length, feature: { $type: 'app.bsky.richtext.facet#tag', tag } });
  }
  for (const match of text.matchAll(cashtagPattern)) {
    const ticker = (match[2] ?? '').toUpperCase();
    const start = match.index + (match[1] ?? '').length;
    found.push({ start, end: start + 1 + ticker.length, feature: { $type: 'app.bsky.richtext.facet#tag', tag: `$${ticker}` } });
  }
  return found;
}

/** The facets of `text`, in the order they appear; a mention whose handle does not resolve is left out. */
export async function facetsOf(text: string, resolveHandle: ResolveHandle): Promise<Facet[]> {
  const mentions = mentionsIn(text);
  const handles = [...new Set(mentions.map(({ feature }) => (feature as { did: string }).did.toLowerCase()))];
  const dids = new Map(await Promise.all(handles.map(async (handle) => [handle, await resolveHandle(handle)] as const)));
  const resolved = mentions.flatMap(({ start, end, feature }): Found[] => {
    const did = dids.get((feature as { did: string }).did.toLowerCase());
    return did ? [{ start, end, feature: { $type: 'app.bsky.richtext.facet#mention', did } }] : [];
  });
  const byteOffset = (index: number) => Buffer.byteLength(text.slice(0, index));
  return [...resolved, ...linksIn(text), ...tagsIn(text)]
    .sort((a, b) => a.start - b.start)
    .map(({ start, end, feature }) => ({ index: { byteStart: byteOffset(start), byteEnd: byteOffset(end) }, features: [feature] }));
}
