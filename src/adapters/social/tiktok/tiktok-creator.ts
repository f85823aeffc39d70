import { SocialRateLimitedError, SocialRejectedError, type Destination, type PlatformFact } from '../social-connector.ts';
import { tikTokApi, tikTokCodeOf, tikTokDataOf, tikTokErrorText, tikTokFailureOf, tikTokJsonHeaders, type TikTokCall } from './tiktok-api.ts';

// What TikTok says of the creator before each post
// (https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info): the privacy levels they may
// post with, the longest video they may post, and the interactions they have turned off, which the post must keep
// off (https://developers.tiktok.com/doc/content-sharing-guidelines).

export type CreatorInfo = {
  username: string | undefined;
  privacyLevels: string[];
  maxVideoSeconds: number | undefined;
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
};

// The content sharing guidelines' names of the privacy levels, as the person sees them in TikTok.
const privacyLevelNames: Record<string, string> = {
  PUBLIC_TO_EVERYONE: 'Everyone',
  MUTUAL_FOLLOW_FRIENDS: 'Friends',
  FOLLOWER_OF_CREATOR: 'Followers',
  SELF_ONLY: 'Only me',
};

/** A privacy level as the person sees it, or TikTok's own name for one we do not know. */
const privacyLevelName = (level: string) => privacyLevelNames[level] ?? level;

// The query's "200 (intentional)" refusals, in our words: a ban is for good; the two daily caps pass, so the
// publication waits and asks again (TikTok does not say when its day ends: an hour, as for Instagram's limit).
const bannedFromPosting = 'spam_risk_user_banned_from_posting';
const dailyCaps: Record<string, string> = {
  spam_risk_too_many_posts: 'TikTok says the account has posted as many times as it may today',
  reached_active_user_cap: 'TikTok says the app has reached its daily limit of people posting through it',
};
const capWaitMs = 60 * 60 * 1000;

const flag = (value: unknown) => value === true;

/** The creator's standing now, or why TikTok will not take a post from them. */
export async function creatorInfoOf({ http, apiUrl, token }: TikTokCall): Promise<CreatorInfo> {
  const answer = await http.request({ method: 'POST', url: tikTokApi(apiUrl, '/post/publish/creator_info/query/'), headers: tikTokJsonHeaders(token) });
  const data = tikTokDataOf(answer);
  if (!data) {
    const code = tikTokCodeOf(answer);
    const words = tikTokErrorText(answer, [token]);
    if (code === bannedFromPosting) throw new SocialRejectedError(`TikTok has banned the account from posting (${words})`);
    const cap = code === undefined ? undefined : dailyCaps[code];
    if (cap) throw new SocialRateLimitedError(`${cap}; the publication asks again in an hour (${words})`, capWaitMs);
    throw tikTokFailureOf(answer, "the creator's settings", [token]);
  }
  const options = Array.isArray(data.privacy_level_options) ? data.privacy_level_options.filter((level): level is string => typeof level === 'string') : [];
  const seconds = data.max_video_post_duration_sec;
  return {
    username: typeof data.creator_username === 'string' && data.creator_username ? data.creator_username : undefined,
    privacyLevels: options,
    maxVideoSeconds: typeof seconds === 'number' && seconds > 0 ? seconds : undefined,
    commentDisabled: flag(data.comment_disabled),
    duetDisabled: flag(data.duet_disabled),
    stitchDisabled: flag(data.stitch_disabled),
  };
}

/** The privacy levels the creator may choose from, as destinations. */
export function privacyLevelsOf(creator: CreatorInfo): Destination[] {
  return creator.privacyLevels.map((level) => ({ id: level, name: privacyLevelName(level) }));
}

const interaction = (disabled: boolean) => (disabled ? "off in the creator's settings: posts keep it off" : 'may be on');

/** The creator's settings as the dry run shows them: what TikTok's creator_info answered, in words. */
export function creatorFactsOf(creator: CreatorInfo): PlatformFact[] {
  return [
    { what: 'privacy levels offered', value: creator.privacyLevels.map(privacyLevelName).join(', ') || 'none' },
    { what: 'longest video', value: creator.maxVideoSeconds === undefined ? 'not said' : `${creator.maxVideoSeconds} s` },
    { what: 'comments', value: interaction(creator.commentDisabled) },
    { what: 'duets', value: interaction(creator.duetDisabled) },
    { what: 'stitches', value: interaction(creator.stitchDisabled) },
  ];
}

/** Why TikTok would refuse this video from this creator with this privacy level, in our words, or undefined. */
export function creatorRefusal(creator: CreatorInfo, privacyLevel: string, durationMs: number): string | undefined {
  if (!creator.privacyLevels.includes(privacyLevel)) {
    const offered = creator.privacyLevels.map(privacyLevelName).join(', ') || 'none';
    return `TikTok no longer lets this account post to "${privacyLevelName(privacyLevel)}" (${privacyLevel} is not among its privacy_level_options: ${offered}); choose another privacy level for the connection`;
  }
  if (creator.maxVideoSeconds !== undefined && durationMs > creator.maxVideoSeconds * 1000) {
    return `The video is ${Math.ceil(durationMs / 1000)} s long and TikTok lets this account post videos of at most ${creator.maxVideoSeconds} s (max_video_post_duration_sec)`;
  }
  return undefined;
}
