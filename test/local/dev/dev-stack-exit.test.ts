import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { infrastructure } from '../../support/infrastructure.ts';
import { createTestDatabase } from '../../support/test-database.ts';

// `npm run dev` when a part of the stack dies under it: it names the part, stops the rest and exits 1 (a stack that
// lost a part only looks alive). The stack here runs on the suite's Temporal server, so only what it starts itself
// (the api, the worker, and in the second case its own PostgreSQL under DATA_DIR) is its to lose.

let dev: { process: ChildProcess; output: () => string } | undefined;

afterEach(async () => {
  if (dev && dev.process.exitCode === null && dev.process.signalCode === null) {
    dev.process.kill('SIGINT');
    await once(dev.process, 'exit');
  }
  dev = undefined;
});

async function startDev(env: Record<string, string>): Promise<{ process: ChildProcess; output: () => string }> {
  const dataDir = mkdtempSync(join(inject('scratchDir'), 'dev-stack-'));
  // PostgreSQL runs as its own user, who must pass through to its cluster.
  chmodSync(dataDir, 0o755);
  const child = spawn(process.execPath, ['src/local/dev/main.ts'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      TEMPORAL_ADDRESS: infrastructure.temporalAddress,
      TEMPORAL_TASK_QUEUE: `dev-stack-${process.pid}-${Date.now()}`,
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolveReady, rejectReady) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Content service is running')) resolveReady();
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', () => rejectReady(new Error(`npm run dev stopped before it was ready:\n${output}`)));
  });
  return { process: child, output: () => output };
}

/** The pid of a process of the stack, found by its script among the children of the dev process. */
function childRunning(parentPid: number, script: string): number {
  const children = readFileSync(`/proc/${parentPid}/task/${parentPid}/children`, 'utf8').trim().split(/\s+/).map(Number);
  const found = children.find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(script));
  if (found === undefined) throw new Error(`No child of ${parentPid} runs ${script}`);
  return found;
}

describe('npm run dev when a part of the stack dies', () => {
  it('when the worker is killed, then it says so, stops the api and exits 1', async () => {
    const database = await createTestDatabase();
    try {
      dev = await startDev({ DATABASE_URL: database.url });
      const api = childRunning(dev.process.pid!, 'src/api/main.ts');
      process.kill(childRunning(dev.process.pid!, 'worker/main.ts'), 'SIGKILL');
      const [code] = (await once(dev.process, 'exit')) as [number | null];
      expect(code).toBe(1);
      expect(dev.output()).toContain('[dev] The worker exited (SIGKILL); stopping the stack.');
      expect(dev.output()).toContain('[dev] Stopped (exit code 1).');
      expect(() => process.kill(api, 0)).toThrow();
    } finally {
      await database.drop();
    }
  }, 180_000);

  it('when its PostgreSQL stops, then it says so, stops the api and the worker and exits 1', async () => {
    dev = await startDev({});
    const parts = ['src/api/main.ts', 'worker/main.ts'].map((script) => childRunning(dev!.process.pid!, script));
    process.kill(postmasterPid(dev.output()), 'SIGKILL');
    const [code] = (await once(dev.process, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(dev.output()).toMatch(/\[dev\] PostgreSQL \(pid \d+\) has stopped under the stack; stopping the rest\./);
    expect(dev.output()).toContain('[dev] Stopped (exit code 1).');
    for (const pid of parts) expect(() => process.kill(pid, 0)).toThrow();
  }, 180_000);
});

/** The postmaster's pid, from postmaster.pid in the data directory the dev stack logged. */
function postmasterPid(output: string): number {
  const directory = /Creating a PostgreSQL cluster in (\S+)/.exec(output)?.[1];
  if (!directory) throw new Error(`The dev stack did not say where its PostgreSQL is:\n${output}`);
  return Number(readFileSync(join(directory, 'postmaster.pid'), 'utf8').split('\n')[0]);
}
