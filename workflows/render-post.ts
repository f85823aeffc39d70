import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { RenderResult } from '../src/domain/generation/save-rendered-image.ts';
import { databaseWork, imageRender } from './activity-options.ts';

// Bounded because a customer's render waits for it (see imageRender).
const { renderPostImage } = proxyActivities<Activities>(imageRender);

// Database work: unbounded only while the database is down (anything else fails at once, see databaseWork).
const { saveRenderedImage } = proxyActivities<Activities>(databaseWork);

export type RenderPostInput = { postId: string; renderId: string };

/** Composes the final post image (artwork, title, brand kit) and makes it the post's image and newest version. */
export async function renderPost(input: RenderPostInput): Promise<RenderResult> {
  const rendered = await renderPostImage(input);
  return saveRenderedImage({ ...input, ...rendered });
}
