import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../../../activities/activity-signatures.ts';
import type { RenderPostInput } from '../../../workflows/contracts/render-post.ts';

// workflows/render-post.ts changed the way a careless edit would: saving becomes a local activity, without
// patched(). A run that scheduled the save as an activity cannot replay on this (see changed-workflows.test.ts).

const { renderPostImage } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute' });
const { saveRenderedImage } = proxyLocalActivities<Activities>({ startToCloseTimeout: '1 minute' });

export async function renderPost(input: RenderPostInput) {
  const rendered = await renderPostImage(input);
  return saveRenderedImage({ ...input, ...rendered });
}
