import { MockActivityEnvironment } from '@temporalio/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { heartbeatingOnAClock } from '../../activities/heartbeat-on-a-clock.ts';

// The activity's own clock, not Temporal's: fake timers let half a minute pass at once.
beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** Runs work that settles only when told to, in an activity context; counts its heartbeats. */
function slowWork(info: { isLocal: boolean }) {
  const environment = new MockActivityEnvironment(info);
  const heartbeats: unknown[] = [];
  environment.on('heartbeat', (details: unknown) => heartbeats.push(details));
  let finish!: () => void;
  const running = environment.run(() => heartbeatingOnAClock(() => new Promise<string>((resolveWork) => (finish = () => resolveWork('done')))));
  return { heartbeats, running, finish: () => finish() };
}

describe('heartbeating on a clock', () => {
  it('when the work runs longer than a heartbeat timeout without reporting, then it heartbeats every 5 s until it settles, and not after', async () => {
    const work = slowWork({ isLocal: false });
    await vi.advanceTimersByTimeAsync(31_000);
    expect(work.heartbeats).toHaveLength(6);
    work.finish();
    expect(await work.running).toBe('done');
    await vi.advanceTimersByTimeAsync(20_000);
    expect(work.heartbeats).toHaveLength(6);
  });

  it('when it runs as a local activity (which has no heartbeat), then it only runs the work', async () => {
    const work = slowWork({ isLocal: true });
    await vi.advanceTimersByTimeAsync(31_000);
    work.finish();
    expect(await work.running).toBe('done');
    expect(work.heartbeats).toHaveLength(0);
  });
});
