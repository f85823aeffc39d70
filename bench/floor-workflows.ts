import { proxyActivities } from '@temporalio/workflow';

// The floors of a workflow on the benchmark's Temporal: one that does nothing, and one that runs a single activity
// that does nothing. Every product workflow pays at least one of these.

const { nothing } = proxyActivities<{ nothing(): Promise<void> }>({ startToCloseTimeout: '30 seconds' });

export async function emptyWorkflow(): Promise<void> {}

export async function oneActivityWorkflow(): Promise<void> {
  await nothing();
}
