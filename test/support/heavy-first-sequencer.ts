import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The suite's wall time is bounded by its longest file, the fuzzing a quarter of one worker's share. A
// file started last makes the run wait for it after everything else is done, so the longest files go first. Vitest
// orders by the durations of the previous run, kept in the toolchain cache (vitest.config.ts); a first run has none and vitest then
// starts the largest files first, which put the fuzzing and the crash tests near the end. These figures (seconds,
// the fifteen longest by their median over five clean-clone runs of `.ci/run` on the 2-core machine, two files per
// core) stand in for a file until vitest has measured it itself: only their order matters.
const expectedSeconds: Record<string, number> = {
  'test/fuzz/api.test.ts': 105,
  'test/replicas/api-killed-mid-request.test.ts': 68,
  'test/api/oauth-linkedin-threads.test.ts': 49,
  'test/workflows/temporal-cost.test.ts': 43,
  'test/api/idempotency-keys.test.ts': 39,
  'test/worker/worker-crash-during-video-upload.test.ts': 38,
  'test/api/dashboard/dashboard.test.ts': 33,
  'test/api/publish-video.test.ts': 31,
  'test/domain/schedules/cron-firing.test.ts': 28,
  'test/worker/worker-crash-during-generation.test.ts': 28,
  'test/adapters/social/nostr/publish-to-nostr.test.ts': 28,
  'test/api/video.test.ts': 26,
  'test/worker/worker-crash-during-video.test.ts': 26,
  'test/api/facebook-publishing.test.ts': 25,
  'test/domain/schedules/half-way-failures.test.ts': 24,
};

/** Longest first: vitest's own figure from the previous run, else the one above, else the file's size decides. */
export default class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const bySize = await super.sort(files);
    const expectedMs = (spec: TestSpecification) =>
      this.ctx.cache.getTestSpecificationResult(spec)?.duration ?? (expectedSeconds[relative(spec.project.config.root, spec.moduleId)] ?? 0) * 1000;
    // Array.prototype.sort is stable: files of no known duration keep vitest's order among themselves.
    return [...bySize].sort((a, b) => expectedMs(b) - expectedMs(a));
  }
}
