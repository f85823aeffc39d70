// Who can see a TikTok post, in words for the attempt's history, from the privacy level it was posted with, when that
// is not everyone. An app TikTok has not audited may post only `SELF_ONLY`
// (https://developers.tiktok.com/doc/content-sharing-guidelines), so a post that no one else sees says why.

const visibilities: Record<string, string> = {
  SELF_ONLY:
    'Visible only to the creator (TikTok\'s "Only me"), the privacy level chosen for the connection; until TikTok has audited the operator\'s app, it is the only one offered.',
  MUTUAL_FOLLOW_FRIENDS: 'Visible only to the creator’s friends (followers they follow back), the privacy level chosen for the connection.',
  FOLLOWER_OF_CREATOR: 'Visible only to the creator’s followers, the privacy level chosen for the connection.',
};

/** What the attempt's history says of a post made with `privacyLevel`; undefined for a public one. */
export function tikTokVisibilityOf(privacyLevel: string): string | undefined {
  if (privacyLevel === 'PUBLIC_TO_EVERYONE') return undefined;
  return visibilities[privacyLevel] ?? `Posted with TikTok's privacy level ${privacyLevel}.`;
}
