import { ApplicationFailure } from '@temporalio/activity';
import { buffer } from 'node:stream/consumers';
import type { BrandKit } from '../src/adapters/database/entities/brand-kit.ts';
import { PostVersion } from '../src/adapters/database/entities/post-version.ts';
import { loadPost } from '../src/domain/posts/load-post.ts';
import { reserveObjectKey } from '../src/domain/storage/orphaned-objects.ts';
import { composePostImage } from '../src/adapters/artwork/compose-post-image.ts';
import { fetchPublicResource, PublicFetchError } from '../src/adapters/net/public-fetch.ts';
import { objectKeys } from '../src/adapters/object-storage/object-keys.ts';
import type { Deps } from '../src/domain/deps.ts';
import { failureTypes } from '../src/adapters/temporal/failure-types.ts';

export type RenderPostImageInput = { postId: string; renderId: string };
export type RenderedImage = { imageKey: string; notes: string[] };

const renderGraceMs = 24 * 60 * 60 * 1000;
const logoLimits = { maxBytes: 2 * 1024 * 1024, timeoutMs: 5000 };

/**
 * Composes the final post image from the generated artwork, the title, the brand kit's colours and fonts and its
 * logo, and stores it. A logo that cannot be fetched does not fail the render: it is left out and said so. A render
 * already saved (its request retried with its Idempotency-Key after its api died runs it again under the same id)
 * answers its image as saved, composing nothing; its notes were not kept.
 */
export async function renderPostImage(deps: Deps, input: RenderPostImageInput): Promise<RenderedImage> {
  const em = deps.orm.em.fork();
  const saved = await em.findOne(PostVersion, { sourceId: input.renderId });
  if (saved?.imageKey) return { imageKey: saved.imageKey, notes: [] };
  const { post, brandKit } = await loadPost(em, input.postId);
  const artwork = post.artworkKey ? await deps.storage.get(post.artworkKey) : null;
  if (!artwork) throw ApplicationFailure.nonRetryable(`Post ${post.id} has no generated artwork to render; generate it first.`, failureTypes.noArtwork);

  const logo = await fetchLogo(brandKit, deps.logoFetch.allowPrivateNetworks);
  const composed = await composePostImage({
    artwork: await buffer(artwork.body),
    format: post.format,
    title: post.title,
    colors: brandKit?.colors ?? {},
    fonts: brandKit?.fonts ?? {},
    logo: logo.bytes,
  });

  const imageKey = objectKeys.postRender(post.workspaceId, post.id, input.renderId);
  await reserveObjectKey(em, { key: imageKey, reason: 'rendered image never saved', graceMs: renderGraceMs });
  await deps.storage.put(imageKey, composed.png, 'image/png');
  return { imageKey, notes: [...logo.notes, ...composed.notes] };
}

async function fetchLogo(brandKit: BrandKit | null, allowPrivateNetworks: boolean): Promise<{ bytes: Buffer | null; notes: string[] }> {
  if (!brandKit?.logoUrl) return { bytes: null, notes: [] };
  try {
    const { body } = await fetchPublicResource(brandKit.logoUrl, { ...logoLimits, allowPrivateNetworks, what: 'logo' });
    return { bytes: body, notes: [] };
  } catch (error) {
    if (error instanceof PublicFetchError) return { bytes: null, notes: [`logo left out: ${error.reason}`] };
    throw error;
  }
}
