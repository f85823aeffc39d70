import type { PlatformDeclaration } from '../../adapters/social/platform-declaration.ts';
import type { OutgoingVideo, PlatformFact, PlatformLimit, SocialPlatform, SocialPostDraft, SocialPostPreview } from '../../adapters/social/social-connector.ts';
import { imageDimensions } from '../../adapters/social/image-dimensions.ts';
import { imageLinkKindOf } from '../../adapters/social/platform-registry.ts';
import { uniqueLinkCount } from '../../adapters/social/link-count.ts';
import { countText } from '../../adapters/social/text-count.ts';
import { maxThreadParts, postPartsOf } from '../../adapters/social/thread-parts.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { connectionNeedsReauth } from '../social-connections/connection-needs-reauth.ts';
import { accountStandingOf } from './account-standing.ts';
import { postImageOf, socialDraftOf } from './social-draft.ts';
import { chooseMedia, postVideoOf, videoInTheMaking, videoProblemsOf, type MediaChoice } from './post-media.ts';
import { readSocialPublication, requestedMediaOf, type SocialPublicationRequest } from './social-publication-request.ts';

type PublicationProblemCode =
  | 'text_too_long'
  | 'thread_unsupported'
  | 'image_too_large'
  | 'image_type_unsupported'
  | 'connection_needs_reauth'
  | 'platform_not_configured'
  | 'public_url_unreachable'
  | 'too_many_links'
  | 'video_not_ready'
  | 'video_in_progress'
  | 'video_unsupported'
  | 'video_required'
  | 'video_too_large'
  | 'video_too_long'
  | 'video_too_short'
  | 'video_too_small'
  | 'aspect_ratio_unsupported'
  | 'destination_needed'
  | 'image_reshaped'
  | 'limit_reached'
  | 'platform_unreachable';
type PublicationProblem = { code: PublicationProblemCode; message: string };
/** One post of what a connection would be sent: its exact text and that text's count in the platform's unit. */
type PartPreview = { text: string; count: number };
/**
 * `text`, `count`, `image` and `video` are the first post's (`media` says which of the two goes); `parts` every
 * post's, in order (one for a single post).
 */
export type ConnectionPreview = SocialPostPreview & {
  connectionId: string;
  platform: SocialPlatform;
  media: 'image' | 'video' | 'none';
  video: OutgoingVideo | null;
  parts: PartPreview[];
  /** The limits the platform counts against the account, as it says they stand (account-standing.ts). */
  limits: PlatformLimit[];
  /** What the platform says of the account's settings that bear on the post (TikTok's creator_info), in words. */
  facts: PlatformFact[];
  problems: PublicationProblem[];
};

/**
 * The dry run of a publication: what each connection would be sent, worked out by its connector as publishing does,
 * and the problems it would meet. Records nothing, and asks a platform only for the limits it counts against the
 * account and its settings (account-standing.ts).
 */
export async function previewSocialPublication(deps: Deps, caller: Caller, postId: string, request: SocialPublicationRequest): Promise<ConnectionPreview[]> {
  const em = deps.orm.em.fork();
  const { post, connections } = await readSocialPublication(em, caller, postId, request);
  const image = await postImageOf(deps, post);
  const video = await postVideoOf(deps, em, post.id);
  const videoComing = !video && (await videoInTheMaking(em, post.id));
  // The platforms asked at once, each within its deadline, so the dry run takes as long as the slowest, not the sum.
  const standings = await Promise.all(connections.map((connection) => accountStandingOf(deps, connection)));
  // Connections of one platform given the same draft get the same preview: a large image is resized once.
  const previews = new Map<string, Promise<SocialPostPreview>>();
  const previewOf = (platform: SocialPlatform, draft: SocialPostDraft) => {
    const key = JSON.stringify([platform, draft.text, draft.image?.alt, draft.image === undefined, draft.video?.bytes]);
    const preview = previews.get(key) ?? deps.social[platform].preview(draft);
    previews.set(key, preview);
    return preview;
  };
  const results: ConnectionPreview[] = [];
  for (const [index, connection] of connections.entries()) {
    const { declaration } = deps.social[connection.platform];
    const choice = chooseMedia(requestedMediaOf(request, connection.id), declaration, video);
    const sent = choice.media === 'video' ? outgoingVideoOf(choice.video) : undefined;
    const draft = socialDraftOf(post, choice.media === 'image' ? image : null, request.overrides?.[connection.id], sent);
    // The media goes with the first part only, as publishing sends it.
    const { parts, cut } = postPartsOf(draft.text, declaration, request.thread ?? false);
    const previews = await Promise.all(parts.map((text, index) => previewOf(connection.platform, index === 0 ? { ...draft, text } : { text })));
    const [preview] = previews as [SocialPostPreview, ...SocialPostPreview[]];
    const problems = problemsOf(declaration, { draft, parts, cut, previews, thread: request.thread ?? false }, preview, {
      needsReauth: connectionNeedsReauth(connection),
      destinationNeeded: declaration.destination !== null && !connection.destinationId,
      configured: deps.socialConfigured[connection.platform],
      imageLinksProblem: imageLinksProblemOf(deps, connection.platform, draft),
    });
    problems.push(...mediaProblemsOf(declaration, choice, videoComing));
    const reshaped = draft.image && preview.image ? await reshapedProblemOf(draft.image.bytes, preview.image) : null;
    if (reshaped) problems.push(reshaped);
    const standing = standings[index]!;
    problems.push(...standing.problems);
    const partPreviews = previews.map(({ text, count }) => ({ text, count }));
    const media = sent ? 'video' : preview.image ? 'image' : 'none';
    results.push({
      connectionId: connection.id,
      platform: connection.platform,
      ...preview,
      media,
      video: sent ?? null,
      parts: partPreviews,
      limits: standing.limits,
      facts: standing.facts,
      problems,
    });
  }
  return results;
}

/** An image the connector would send in another shape than the post's (Instagram pads a 9:16 image to 4:5). */
async function reshapedProblemOf(bytes: Buffer, sent: { width: number; height: number }): Promise<PublicationProblem | null> {
  const { width, height } = await imageDimensions(bytes, 'the platform');
  // A pixel's rounding in a resize is not a new shape.
  if (Math.abs(width / height - sent.width / sent.height) < 0.01) return null;
  const message = `The ${width}×${height} image would be sent as ${sent.width}×${sent.height}, padded to a shape the platform takes.`;
  return { code: 'image_reshaped', message };
}

/** The video as the dry run shows it: its facts, not where it is stored. */
function outgoingVideoOf({ type, bytes, durationMs, width, height }: OutgoingVideo): OutgoingVideo {
  return { type, bytes, durationMs, width, height };
}

/**
 * What would stop the video (asked for and missing, or outside the platform's rules), or, where the image would go
 * to a platform that takes video because the post's video is still being made, that it would not wait for it.
 */
function mediaProblemsOf(declaration: PlatformDeclaration, choice: MediaChoice, videoComing: boolean): PublicationProblem[] {
  if (choice.media === 'refused') return [{ code: choice.code, message: `${choice.reason} Publishing would fail.` }];
  if (choice.media === 'video' && declaration.video) return videoProblemsOf(declaration.video, choice.video);
  if (choice.media === 'image' && videoComing && declaration.video) {
    return [{ code: 'video_in_progress', message: "The post's video is still being made: publishing now would send its image instead." }];
  }
  return [];
}

/** Why the platform (Threads) or its readers (Nostr) could not fetch the image from the link of ours it is given. */
function imageLinksProblemOf(deps: Deps, platform: SocialPlatform, draft: SocialPostDraft): PublicationProblem | null {
  const kind = imageLinkKindOf(platform);
  return kind && (draft.image || draft.video) ? deps.imageLinksProblem[kind] : null;
}

type TextSent = { draft: SocialPostDraft; parts: string[]; cut: boolean; previews: SocialPostPreview[]; thread: boolean };

/** What would happen to the text: shortened (one post, or a thread too long), or not posted as the thread asked for. */
function textProblemOf(declaration: PlatformDeclaration, { draft, parts, cut, previews, thread }: TextSent): PublicationProblem | null {
  const { max, unit } = declaration.text;
  const [first] = previews;
  if (parts.length === 1 && first && first.text !== draft.text) {
    const shortened = `shortened from ${countText(draft.text, declaration.text)} to ${first.count} ${unit} (the platform takes at most ${max})`;
    if (thread && !declaration.threads) {
      return { code: 'thread_unsupported', message: `The platform has no threads: the text would be posted as one post, ${shortened}.` };
    }
    return { code: 'text_too_long', message: `The text would be ${shortened}.` };
  }
  if (cut) {
    return { code: 'text_too_long', message: `The text is longer than a thread of ${maxThreadParts} parts: its end would be cut from the last part.` };
  }
  const index = previews.findIndex((preview, at) => preview.text !== parts[at]);
  if (index < 0) return null;
  return { code: 'text_too_long', message: `Part ${index + 1} would be shortened to ${previews[index]!.count} ${unit} (the platform's other limits).` };
}

/** A post (or part of a thread) with more different links than the platform takes: the platform refuses it whole. */
function linksProblemOf(declaration: PlatformDeclaration, previews: SocialPostPreview[]): PublicationProblem | null {
  const { maxLinks } = declaration.text;
  if (maxLinks === undefined) return null;
  const index = previews.findIndex(({ text }) => uniqueLinkCount(text) > maxLinks);
  if (index < 0) return null;
  const which = previews.length > 1 ? `Part ${index + 1}` : 'The post';
  const count = uniqueLinkCount(previews[index]!.text);
  return { code: 'too_many_links', message: `${which} would carry ${count} different links; the platform takes at most ${maxLinks}: publishing would fail.` };
}

function problemsOf(
  declaration: PlatformDeclaration,
  text: TextSent,
  preview: SocialPostPreview,
  connection: { needsReauth: boolean; destinationNeeded: boolean; configured: boolean; imageLinksProblem: PublicationProblem | null },
): PublicationProblem[] {
  const problems: PublicationProblem[] = [];
  const textProblem = textProblemOf(declaration, text);
  if (textProblem) problems.push(textProblem);
  const linksProblem = linksProblemOf(declaration, text.previews);
  if (linksProblem) problems.push(linksProblem);
  const sent = preview.image;
  if (sent && sent.bytes > declaration.images.maxBytes) {
    const message = `The image would be ${sent.bytes} bytes as sent, more than the platform's ${declaration.images.maxBytes}: publishing would fail.`;
    problems.push({ code: 'image_too_large', message });
  }
  if (sent && !(declaration.images.types as string[]).includes(sent.type)) {
    const message = `The platform does not take ${sent.type} images (it takes ${declaration.images.types.join(', ')}): publishing would fail.`;
    problems.push({ code: 'image_type_unsupported', message });
  }
  if (connection.needsReauth) {
    problems.push({ code: 'connection_needs_reauth', message: 'The connection needs to be authorised again: publishing to it would fail until it is.' });
  }
  if (connection.destinationNeeded) {
    const message = `No ${declaration.destination} has been chosen for the connection (PATCH /social-connections/{id}): publishing would fail until one is.`;
    problems.push({ code: 'destination_needed', message });
  }
  if (!connection.configured) {
    problems.push({
      code: 'platform_not_configured',
      message: 'This service is not set up for the platform (its client id and secret): publishing would fail.',
    });
  }
  if (connection.imageLinksProblem) problems.push(connection.imageLinksProblem);
  return problems;
}
