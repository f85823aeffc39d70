// A link as platforms find them in a post's text: an http(s) URL up to the next space, without the punctuation that
// ends a sentence around it.
const links = /https?:\/\/\S+/gi;
const trailing = /[.,;:!?)\]}'"]+$/;

/** How many different links the text carries (Threads counts "all unique URLs found in the text"). */
export function uniqueLinkCount(text: string): number {
  return new Set(Array.from(text.matchAll(links), ([link]) => link.replace(trailing, '').toLowerCase())).size;
}
