import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/activity-signatures.ts';
import { eventSweep } from './contracts/activity-options.ts';
import type { SweepEventsInput, SweepEventsResult } from './contracts/sweep-events.ts';

const { handOverForgottenEvents } = proxyActivities<Activities>(eventSweep);

// A page is one activity (three history events): past this many in one run (or when Temporal suggests it sooner),
// the run continues as new with its count and place, so a backlog after a long outage never grows a history
// without bound.
const pagesPerRun = 100;

/**
 * Run by the `event-sweep` Temporal Schedule: hands every event its recorder did not hand over (Temporal down, a
 * crash right after the commit) to its delivery workflow, page by page.
 */
export async function sweepEvents({ handedOverBefore = 0, afterId }: SweepEventsInput = {}): Promise<SweepEventsResult> {
  let handedOver = handedOverBefore;
  let after = afterId;
  for (let page = 1; ; page += 1) {
    const swept = await handOverForgottenEvents(after === undefined ? {} : { afterId: after });
    handedOver += swept.handedOver;
    if (swept.nextAfterId === undefined) return { handedOver };
    after = swept.nextAfterId;
    if (page >= pagesPerRun || workflowInfo().continueAsNewSuggested)
      return continueAsNew<typeof sweepEvents>({ handedOverBefore: handedOver, afterId: after });
  }
}
