import { spawn, type ChildProcess } from 'node:child_process';

/**
 * `npm run worker` as a real process (so a test can kill it the hard way), ready once it polls its task queue. It
 * inherits the test process's scratch directory for its temporary files (test/setup/own-ports-and-scratch.ts).
 */
export async function startWorkerProcess(env: Record<string, string>): Promise<{ process: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['worker/main.ts'], { env: { ...process.env, ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
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
