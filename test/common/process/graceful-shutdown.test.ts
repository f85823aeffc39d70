import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../../src/local/embedded/ports.ts';
import { createTestDatabase } from '../../support/test-database.ts';
import { testConfigEnv } from '../../support/test-config.ts';

// The production entry points (`npm run api`, `npm run worker`) as real processes: they start from the
// environment alone and stop cleanly, with exit code 0, on SIGTERM and SIGINT.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

async function runUntilReady(script: string, env: NodeJS.ProcessEnv, isReady: (output: string) => Promise<boolean>) {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!(await isReady(output))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${script} did not get ready:\n${output}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
  return { child, output: () => output };
}

describe('process lifecycle', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('when the api receives %s, then it stops serving and exits with 0', async (signal) => {
    const port = await findFreePort();
    const { child, output } = await runUntilReady('src/api/main.ts', { ...testConfigEnv(database.url), PORT: String(port) }, async () =>
      fetch(`http://127.0.0.1:${port}/health`).then(
        (response) => response.ok,
        () => false,
      ),
    );
    child.kill(signal);
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
    expect(output()).toContain('"msg":"stopped"');
  });

  it('when the worker receives SIGTERM, then it drains and exits with 0', async () => {
    const { child, output } = await runUntilReady('worker/main.ts', testConfigEnv(database.url), (text) => Promise.resolve(text.includes('"state":"RUNNING"')));
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
    expect(output()).toContain('"msg":"worker stopped"');
  });
});
