import vm from 'node:vm';
import { percentile } from './stats.ts';

// What one call into a workflow sandbox costs with and without a `timeout`. The Temporal SDK runs each of its calls
// into the sandbox (creating a run, each activation, its sink calls) under the worker's deadlock timeout,
// `isolateExecutionTimeout`, and for every call with a timeout Node starts and joins a watchdog thread
// (nodejs/node#47739). The sandbox here is made as the SDK makes its own, and does nothing, so the difference is
// the watchdog alone.

const callsPerSample = 2_000;
const samples = 9;

/** Microseconds per call, p50 over samples taken in turns: with the SDK's default timeout (5 s), and without. */
export function sandboxCallCost(): { withTimeout: number; without: number } {
  const context = vm.createContext({}, { microtaskMode: 'afterEvaluate' });
  const call = new vm.Script('undefined');
  const perCall = (options: vm.RunningScriptOptions) => {
    const started = performance.now();
    for (let index = 0; index < callsPerSample; index += 1) call.runInContext(context, options);
    return ((performance.now() - started) * 1000) / callsPerSample;
  };
  const runs = { withTimeout: [] as number[], without: [] as number[] };
  for (let sample = 0; sample < samples; sample += 1) {
    runs.withTimeout.push(perCall({ timeout: 5_000 }));
    runs.without.push(perCall({}));
  }
  return { withTimeout: percentile(runs.withTimeout, 50), without: percentile(runs.without, 50) };
}
