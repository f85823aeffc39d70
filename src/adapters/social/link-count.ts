// A link as platforms find them in a post's text: an http(s) URL up to the next space, without the punctuation that
// ends a sentence around it. Bare domains (example.com) are not counted: Threads' page speaks of URLs and does not
// say it counts them.
const links = /https?:\/\/\S+/gi;
const trailing = /[.,;:!?)\]}'"]+$/;

/** The link as one URL whatever its case where case does not matter (scheme and host); paths keep theirs. */
function sameLink(link: string): string {
  const url = link.replace(trailing, '');
  return URL.canParse(url) ? new URL(url).href : url;
}

/** How many different links the text carries (Threads counts "all unique URLs found in the text"). */
export function uniqueLinkCount(text: string): number {
  return new Set(Array.from(text.matchAll(links), ([link]) => sameLink(link))).size;
}

/** The text's first link, without the punctuation that ends a sentence around it (Pinterest's Pin link); none: undefined. */
export function firstLinkOf(text: string): string | undefined {
  const [link] = text.match(links) ?? [];
  return link?.replace(trailing, '');
}
