import { spawn } from 'node:child_process';
import { once } from 'node:events';

/** `npm run migrate` as an operator runs it (a deploy's migration job), against `databaseUrl`; resolves when it exits. */
export function runMigrate(databaseUrl: string): Promise<{ code: number | null; output: string }> {
  const child = spawn('npm', ['run', '--silent', 'migrate'], { env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return once(child, 'exit').then(([code]) => ({ code: code as number | null, output }));
}
