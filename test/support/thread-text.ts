// A 1,200-character text in sentences of different lengths, with a link and a tag: three or more parts on every
// platform with threads, so a chain, a failure at part 3 and a worker killed between part 2 and part 3 can be shown.
const sentences = [
  'The harbour wakes before the town does, and the first ferry sounds its horn at half past five.',
  'Fishing boats slip out in a line, their lights strung across the water like a second shoreline.',
  'By six the fish market is loud with gulls, prices and the scrape of crates on wet stone.',
  'Later the tourists come for the light, which turns the old warehouses gold for an hour.',
  'Follow along at https://example.com/harbour-diary for the whole week. #harbour',
];

export const longThreadText = Array.from({ length: 14 }, (_, index) => sentences[index % sentences.length])
  .join(' ')
  .slice(0, 1_200)
  .trimEnd();

/** A part's text without the ` (k/n)` that numbers it. */
export function unnumbered(text: string): string {
  return text.replace(/ \(\d+\/\d+\)$/, '');
}
