// The floor of a workflow round trip: a workflow that does nothing (bench/generate-latency.ts).
export async function emptyWorkflow(): Promise<void> {}
