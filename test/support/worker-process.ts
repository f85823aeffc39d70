import { spawn, type ChildProcess } from 'node:child_process';
import { infrastructure } from './infrastructure.ts';

/**
 * `npm run worker` as a real process (so a test can kill it the hard way), ready once it polls its task queue. It
 * inherits the test process's scratch directory for its temporary files (test/setup/own-ports-and-scratch.ts).
 * It runs the run's prebuilt workflow bundle (test/global-setup.ts), as a deployed worker does; `bundlesItself`
 * leaves `TEMPORAL_WORKFLOW_BUNDLE` unset so that the worker bundles the workflows at start-up, as `npm run worker`
 * does in development (worker-start-up.test.ts keeps that path tested). `quickFailover` runs the bundle whose
 * heartbeat timeouts are at most 5 s (quick-failover-interceptors.ts), for tests that kill workers and wait for
 * Temporal to notice; every worker on the file's task queue must then run it.
 */
export async function startWorkerProcess(
  env: Record<string, string>,
  { bundlesItself = false, quickFailover = false } = {},
): Promise<{ process: ChildProcess; output: () => string }> {
  const bundlePath = quickFailover ? infrastructure.quickFailoverBundlePath : infrastructure.workflowBundlePath;
  const bundle: Record<string, string> = bundlesItself ? {} : { TEMPORAL_WORKFLOW_BUNDLE: bundlePath };
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...bundle, ...env, LOG_LEVEL: 'info' };
  if (bundlesItself) delete childEnv.TEMPORAL_WORKFLOW_BUNDLE;
  const child = spawn(process.execPath, ['worker/main.ts'], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!output.includes('"state":"RUNNING"')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`The worker did not start:\n${output}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
  return { process: child, output: () => output };
}
