// Not a test: workflow interceptors bundled into the crash tests' workflow bundle only (test/global-setup.ts).
import { msToNumber } from '@temporalio/common/lib/time.js';
import type { WorkflowInterceptors } from '@temporalio/workflow';

// A worker killed with SIGKILL is noticed by Temporal only when the activity's heartbeat timeout passes (up to 30 s in
// workflows/contracts/activity-options.ts). The tests that kill workers would wait that out once per kill; in their
// bundle every heartbeat timeout is at most this, and the activities heartbeat a few times per timeout
// (activities/heartbeat-on-a-clock.ts), so a live attempt is never taken for a dead one.
const heartbeatTimeoutCapMs = 5_000;

export function interceptors(): WorkflowInterceptors {
  return {
    outbound: [
      {
        scheduleActivity: (input, next) => {
          const { heartbeatTimeout } = input.options;
          if (heartbeatTimeout === undefined) return next(input);
          return next({ ...input, options: { ...input.options, heartbeatTimeout: Math.min(msToNumber(heartbeatTimeout), heartbeatTimeoutCapMs) } });
        },
      },
    ],
  };
}
