import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../../../activities/activity-signatures.ts';
import type { RenderPostInput } from '../../../workflows/contracts/render-post.ts';

// The same change made the way the README says (Changing a workflow): behind patched(), so runs that began before
// keep scheduling the save as an activity (see changed-workflows.test.ts).

const { renderPostImage, saveRenderedImage } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute' });
const local = proxyLocalActivities<Activities>({ startToCloseTimeout: '1 minute' });

export async function renderPost(input: RenderPostInput) {
  const rendered = await renderPostImage(input);
  return (patched('render-local-save') ? local.saveRenderedImage : saveRenderedImage)({ ...input, ...rendered });
}
