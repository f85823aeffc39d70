import { Context } from '@temporalio/activity';

// A heartbeat says "this worker is alive and on it". Each step of these activities is bounded by a timeout of its
// own (a platform request, a storage call), but several in a row can outlast the activity's heartbeat timeout:
// Temporal would then time out an attempt that is still running and start a second one beside it. Heartbeating on
// a clock for the whole activity keeps that promise; a worker that dies still shows within the heartbeat timeout.
// Three beats per timeout, so one late beat (a busy event loop) never lets it pass; never slower than every 5 s.
const beatsPerTimeout = 3;
const slowestBeatMs = 5_000;

/** Runs `work`, heartbeating a few times per heartbeat timeout until it settles (a local activity has no heartbeat). */
export async function heartbeatingOnAClock<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  if (context.info.isLocal) return work();
  const everyMs = Math.min(slowestBeatMs, (context.info.heartbeatTimeoutMs ?? Infinity) / beatsPerTimeout);
  const timer = setInterval(() => context.heartbeat(), everyMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
