import type { PlatformDeclaration } from '../../adapters/social/platform-declaration.ts';
import type { SocialPlatform, SocialPostDraft, SocialPostPreview } from '../../adapters/social/social-connector.ts';
import { countText } from '../../adapters/social/text-count.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { connectionNeedsReauth } from '../social-connections/connection-needs-reauth.ts';
import { postImageOf, socialDraftOf } from './social-draft.ts';
import { readSocialPublication, type SocialPublicationRequest } from './social-publication-request.ts';

export type PublicationProblemCode =
  'text_too_long' | 'image_too_large' | 'image_type_unsupported' | 'connection_needs_reauth' | 'platform_not_configured' | 'public_url_unreachable';
export type PublicationProblem = { code: PublicationProblemCode; message: string };
export type ConnectionPreview = SocialPostPreview & { connectionId: string; platform: SocialPlatform; problems: PublicationProblem[] };

/**
 * The dry run of a publication: what each connection would be sent, worked out by its connector as publishing does,
 * and the problems it would meet. Asks no platform and records nothing.
 */
export async function previewSocialPublication(deps: Deps, caller: Caller, postId: string, request: SocialPublicationRequest): Promise<ConnectionPreview[]> {
  const { post, connections } = await readSocialPublication(deps.orm.em.fork(), caller, postId, request);
  const image = await postImageOf(deps, post);
  // Connections of one platform given the same draft get the same preview: a large image is resized once.
  const previews = new Map<string, Promise<SocialPostPreview>>();
  const previewOf = (platform: SocialPlatform, draft: SocialPostDraft) => {
    const key = JSON.stringify([platform, draft.text, draft.image?.alt]);
    const preview = previews.get(key) ?? deps.social[platform].preview(draft);
    previews.set(key, preview);
    return preview;
  };
  const results: ConnectionPreview[] = [];
  for (const connection of connections) {
    const draft = socialDraftOf(post, image, request.overrides?.[connection.id]);
    const preview = await previewOf(connection.platform, draft);
    const problems = problemsOf(deps.social[connection.platform].declaration, draft, preview, {
      needsReauth: connectionNeedsReauth(connection),
      configured: deps.socialConfigured[connection.platform],
      // Threads fetches the image itself, from a signed link of ours.
      imageLinksProblem: connection.platform === 'threads' && draft.image ? deps.imageLinksProblem : null,
    });
    results.push({ connectionId: connection.id, platform: connection.platform, ...preview, problems });
  }
  return results;
}

function problemsOf(
  declaration: PlatformDeclaration,
  draft: SocialPostDraft,
  preview: SocialPostPreview,
  connection: { needsReauth: boolean; configured: boolean; imageLinksProblem: PublicationProblem | null },
): PublicationProblem[] {
  const problems: PublicationProblem[] = [];
  const { max, unit } = declaration.text;
  if (preview.text !== draft.text) {
    const message = `The text would be shortened from ${countText(draft.text, declaration.text)} to ${preview.count} ${unit} (the platform takes at most ${max}).`;
    problems.push({ code: 'text_too_long', message });
  }
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
  if (!connection.configured) {
    problems.push({
      code: 'platform_not_configured',
      message: 'This service is not set up for the platform (its client id and secret): publishing would fail.',
    });
  }
  if (connection.imageLinksProblem) problems.push(connection.imageLinksProblem);
  return problems;
}
