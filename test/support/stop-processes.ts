import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** SIGTERM to each process a test started that is still running, and waits until all have exited. */
export async function stopProcesses(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children
      .filter((child) => child.exitCode === null && child.signalCode === null)
      .map(async (child) => {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }),
  );
}
