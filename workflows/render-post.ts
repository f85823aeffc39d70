import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/activity-signatures.ts';
import { databaseWork, imageRender } from './contracts/activity-options.ts';
import type { RenderPostInput, RenderResult } from './contracts/render-post.ts';

// Bounded because a customer's render waits for it (see imageRender).
const { renderPostImage } = proxyActivities<Activities>(imageRender);

// Database work: unbounded only while the database is down (anything else fails at once, see databaseWork).
const { saveRenderedImage } = proxyActivities<Activities>(databaseWork);

/** Composes the final post image (artwork, title, brand kit) and makes it the post's image and newest version. */
export async function renderPost(input: RenderPostInput): Promise<RenderResult> {
  const rendered = await renderPostImage(input);
  return saveRenderedImage({ ...input, ...rendered });
}
