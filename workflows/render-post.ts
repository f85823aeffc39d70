import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { RenderResult } from '../activities/save-rendered-image.ts';

const { renderPostImage } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

const { saveRenderedImage } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export type RenderPostInput = { postId: string; renderId: string };

/** Composes the final post image (artwork, title, brand kit) and makes it the post's image and newest version. */
export async function renderPost(input: RenderPostInput): Promise<RenderResult> {
  const rendered = await renderPostImage(input);
  return saveRenderedImage({ ...input, ...rendered });
}
