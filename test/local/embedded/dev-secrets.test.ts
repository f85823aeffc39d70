import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { describe, expect, inject, it } from 'vitest';

// The dev stack's secrets under DATA_DIR, read by every local process (`npm run dev`, the admin CLI) as it starts.
// Processes that start at once on a new DATA_DIR must all end up with the same secrets, and none may read the file
// half-written (two `npm run admin` at once once failed with "Unexpected end of JSON input").

const module = fileURLToPath(new URL('../../../src/local/embedded/dev-secrets.ts', import.meta.url));

/** Processes on `dataDir` that have loaded devSecrets() and call it when told to go; their answers. */
async function secretsInProcesses(dataDir: string, count: number): Promise<unknown[]> {
  // Each process waits for a line on stdin, so that all of them call devSecrets() within the same moment.
  const script = `import { devSecrets } from ${JSON.stringify(module)}; console.log('ready');
    process.stdin.once('data', () => { console.log(JSON.stringify(devSecrets())); process.exit(0); });`;
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, DATA_DIR: dataDir }, stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const lines = children.map((child) => createInterface({ input: child.stdout })[Symbol.asyncIterator]());
  for (const line of lines) expect((await line.next()).value).toBe('ready');
  for (const child of children) child.stdin.write('go\n');
  const answers = await Promise.all(lines.map(async (line) => JSON.parse((await line.next()).value as string) as unknown));
  await Promise.all(children.filter((child) => child.exitCode === null).map((child) => once(child, 'exit')));
  return answers;
}

/** What devSecrets() answers in a process of its own on `dataDir`. */
async function secretsInProcess(dataDir: string): Promise<unknown> {
  return (await secretsInProcesses(dataDir, 1))[0];
}

describe('devSecrets', () => {
  it('when eight processes start at once on a new DATA_DIR, then all get the secrets the file keeps, and no other file is left', async () => {
    const dataDir = mkdtempSync(join(inject('scratchDir'), 'dev-secrets-'));
    const answers = await secretsInProcesses(dataDir, 8);
    const kept: unknown = JSON.parse(readFileSync(join(dataDir, 'dev-secrets.json'), 'utf8'));
    expect(kept).toEqual({ URL_SIGNING_SECRET: expect.any(String), ENCRYPTION_KEY: expect.any(String) });
    for (const answer of answers) expect(answer).toEqual(kept);
    expect(readdirSync(dataDir)).toEqual(['dev-secrets.json']);
    // Readable by its owner alone.
    expect(statSync(join(dataDir, 'dev-secrets.json')).mode & 0o777).toBe(0o600);
  });

  it('when eight processes start at once on a file that lacks a secret a later version added, then it is generated once and the saved one kept', async () => {
    const dataDir = mkdtempSync(join(inject('scratchDir'), 'dev-secrets-'));
    writeFileSync(join(dataDir, 'dev-secrets.json'), JSON.stringify({ URL_SIGNING_SECRET: 'kept-from-before' }));
    const answers = await secretsInProcesses(dataDir, 8);
    const kept: unknown = JSON.parse(readFileSync(join(dataDir, 'dev-secrets.json'), 'utf8'));
    expect(kept).toEqual({ URL_SIGNING_SECRET: 'kept-from-before', ENCRYPTION_KEY: expect.any(String) });
    for (const answer of answers) expect(answer).toEqual(kept);
    expect(readdirSync(dataDir)).toEqual(['dev-secrets.json']);
    expect(await secretsInProcess(dataDir)).toEqual(kept);
  });
});
