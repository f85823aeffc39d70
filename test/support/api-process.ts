import { spawn, type ChildProcess } from 'node:child_process';

/**
 * `npm run api` as a real process, ready once /health answers; `url` is its base URL. It listens on a port of its
 * own choosing (PORT=0) and says which in its "api listening" log line: a port picked here and handed over could be
 * taken by another process in between (it was, once, in CI: EADDRINUSE).
 */
export async function startApiProcess(env: Record<string, string>): Promise<{ process: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, ['src/api/main.ts'], {
    env: { ...process.env, ...env, PORT: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  let url: string | undefined;
  while (
    !url ||
    !(await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    ))
  ) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`The api did not start:\n${output}`);
    url ??= listeningUrl(output);
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
  return { process: child, url, output: () => output };
}

function listeningUrl(output: string): string | undefined {
  // Only whole lines: a chunk of stdout can end in the middle of one.
  for (const line of output.split('\n').slice(0, -1)) {
    if (!line.includes('"api listening"')) continue;
    const { url } = JSON.parse(line) as { url?: string };
    if (url) return url;
  }
  return undefined;
}
