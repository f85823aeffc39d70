import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { RenderResult } from '../src/domain/generation/save-rendered-image.ts';
import { databaseWork } from './activity-options.ts';

// Composing reads storage and fetches the brand logo (a missing logo is a note, not a failure); bounded at 5
// attempts over about a minute because a customer's render waits for it.
const { renderPostImage } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

// Database work: unbounded only while the database is down (anything else fails at once, see databaseWork).
const { saveRenderedImage } = proxyActivities<Activities>(databaseWork);

export type RenderPostInput = { postId: string; renderId: string };

/** Composes the final post image (artwork, title, brand kit) and makes it the post's image and newest version. */
export async function renderPost(input: RenderPostInput): Promise<RenderResult> {
  const rendered = await renderPostImage(input);
  return saveRenderedImage({ ...input, ...rendered });
}
