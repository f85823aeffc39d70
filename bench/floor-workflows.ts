import { condition, defineUpdate, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';

// The floors of a workflow on the benchmark's Temporal: one that does nothing, one that runs a single activity that
// does nothing, and the shape of a publication (started by Update-with-Start, whose handler runs one local activity
// that does nothing before it answers, and the run ends). Every product workflow pays at least one of these.

const { nothing } = proxyActivities<{ nothing(): Promise<void> }>({ startToCloseTimeout: '30 seconds' });
const { nothing: nothingLocally } = proxyLocalActivities<{ nothing(): Promise<void> }>({ startToCloseTimeout: '30 seconds' });

/** The update that starts updatedWithLocalActivityWorkflow. */
export const floorUpdate = defineUpdate<void>('floor');

export async function emptyWorkflow(): Promise<void> {}

export async function oneActivityWorkflow(): Promise<void> {
  await nothing();
}

export async function updatedWithLocalActivityWorkflow(): Promise<void> {
  let answered = false;
  setHandler(floorUpdate, async () => {
    await nothingLocally();
    answered = true;
  });
  await condition(() => answered);
}
