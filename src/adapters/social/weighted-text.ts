import twitterText from 'twitter-text';

// X counts a post's text by weight (https://docs.x.com/fundamentals/counting-characters): after NFC normalisation,
// code points in the Latin, punctuation and general symbol ranges weigh 1, every other (CJK, most emoji...) 2, an
// emoji sequence counts as one emoji, and every URL weighs 23 whatever its length; a post weighs at most 280.
// twitter-text is X's own implementation of those rules (its v3 configuration), so the count here is the one X
// applies.

/** The most a post on X weighs. */
export const xMaxWeightedLength = 280;

/** The text's weight as X counts it. */
export function weightedLength(text: string): number {
  return twitterText.parseTweet(text).weightedLength;
}
