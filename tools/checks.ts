import { spawn } from 'node:child_process';

// `npm test`'s checks: the type-check and the lint side by side, before the suite. Each is one single-threaded
// process for most of its time, so together they use both cores of a small machine instead of taking turns. Each
// one's output is printed whole once it ends, so the two never interleave; any failure fails the checks.
const checks = ['typecheck', 'lint'];

const results = await Promise.all(
  checks.map(
    (script) =>
      new Promise<{ script: string; code: number | null; output: string }>((resolve) => {
        const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.on('close', (code) => resolve({ script, code, output }));
      }),
  ),
);
for (const { script, code, output } of results) {
  if (output.trim() !== '') process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
  if (code !== 0) console.error(`npm run ${script} failed (exit code ${code}).`);
}
process.exit(results.every(({ code }) => code === 0) ? 0 : 1);
