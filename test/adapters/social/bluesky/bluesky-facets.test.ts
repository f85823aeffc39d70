import { RichText } from '@atproto/api';
import { describe, expect, it } from 'vitest';
import { facetsOf } from '../../../../src/adapters/social/bluesky/bluesky-facets.ts';

// Our facets follow Bluesky's rules, ported from @atproto/api (which takes over a second to import, too slow for
// the api and the worker). Here the port is held to the library itself, on texts that exercise each rule.

const texts = [
  'Launch 🚀 día #lanzamiento → https://example.com/a?b=c @alice.test',
  'Our #1 pick, by @nobody.test: https://example.com/x. Read it (#launch!)',
  'Bare domains: example.com, bsky.app/profile/x and notadomain.invalidtld',
  'Parentheses (https://example.com/a_(b)) and (https://example.com/c)',
  '#tag #tag2 #2024 #café #日本語 ＃fullwidth #a.b. #🚀 #tag\u200Bafter',
  `#${'x'.repeat(64)} #${'y'.repeat(65)}`,
  'Cashtags $AAPL and $brk.b, not $12 or a$b',
  'Mentions: @alice.bsky.social, (@bob.example.com) and email carol@example.com',
  'http://plain.example.org/path?q=1#frag! trailing',
  '👩‍👩‍👧‍👦 before https://example.com/ü and after',
];

/** The facets the reference library finds, with mentions standing for themselves (as `did:handle:<handle>`). */
function referenceFacets(text: string): unknown[] {
  const rich = new RichText({ text });
  rich.detectFacetsWithoutResolution();
  return (rich.facets ?? []).map(({ index, features }) => ({
    index: { byteStart: index.byteStart, byteEnd: index.byteEnd },
    features: features.map((feature) => {
      const { $type, ...rest } = feature as { $type: string; did?: string };
      return $type === 'app.bsky.richtext.facet#mention' ? { $type, did: `did:handle:${rest.did}` } : { $type, ...rest };
    }),
  }));
}

describe('Bluesky facets', () => {
  it.each(texts)('when the text is %j, then the facets are those of @atproto/api', async (text) => {
    const ours = await facetsOf(text, (handle) => Promise.resolve(`did:handle:${handle}`));
    const byStart = (a: { index: { byteStart: number } }, b: { index: { byteStart: number } }) => a.index.byteStart - b.index.byteStart;
    expect(ours).toEqual((referenceFacets(text) as typeof ours).sort(byStart));
  });

  it('when a mention does not resolve, then it is left out and the rest stays', async () => {
    const facets = await facetsOf('Hi @ghost.test see #news', () => Promise.resolve(undefined));
    expect(facets.map(({ features }) => features[0].$type)).toEqual(['app.bsky.richtext.facet#tag']);
  });
});
