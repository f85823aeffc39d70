import vm from 'node:vm';
import { percentile } from './stats.ts';

// What one call into a workflow sandbox costs with and without a `timeout`. The Temporal SDK runs each of its calls
// into the sandbox (creating a run, each activation, its sink calls) under the worker's deadlock timeout,
// `isolateExecutionTimeout`, and for every call with a timeout Node starts and joins a watchdog thread
// (nodejs/node#47739). The sandbox here is made as the SDK makes its own and does nothing, so the difference is the
// watchdog alone. It is measured on this thread; the SDK makes its calls on its workflow thread, which pays the same.

const callsPerSample = 2_000;
const samples = 9;
// The SDK's default deadlock timeout (5 s), and none.
const variants = { withTimeout: { timeout: 5_000 }, without: {} } satisfies Record<string, vm.RunningScriptOptions>;

/** Microseconds per call, p50 over samples taken in turns, for each variant. */
export function sandboxCallCost(): { withTimeout: number; without: number } {
  const context = vm.createContext({}, { microtaskMode: 'afterEvaluate' });
  const call = new vm.Script('undefined');
  const perCall = (options: vm.RunningScriptOptions) => {
    const started = performance.now();
    for (let index = 0; index < callsPerSample; index += 1) call.runInContext(context, options);
    return ((performance.now() - started) * 1000) / callsPerSample;
  };
  for (const options of Object.values(variants)) perCall(options); // warm-up, not kept
  const runs = { withTimeout: [] as number[], without: [] as number[] };
  for (let sample = 0; sample < samples; sample += 1) {
    // Each variant goes first in every other turn.
    const order = sample % 2 === 0 ? (['withTimeout', 'without'] as const) : (['without', 'withTimeout'] as const);
    for (const variant of order) runs[variant].push(perCall(variants[variant]));
  }
  return { withTimeout: percentile(runs.withTimeout, 50), without: percentile(runs.without, 50) };
}
