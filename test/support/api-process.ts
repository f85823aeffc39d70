import { spawn, type ChildProcess } from 'node:child_process';
import { findFreePort } from '../../src/embedded/ports.ts';

/** `npm run api` as a real process, ready once /health answers; `url` is its base URL. */
export async function startApiProcess(env: Record<string, string>): Promise<{ process: ChildProcess; url: string; output: () => string }> {
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['src/api/main.ts'], { env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!(await fetch(`${url}/health`).then((response) => response.ok, () => false))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`The api did not start:\n${output}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
  return { process: child, url, output: () => output };
}
