// `node tools/side-by-side.mjs <script> [script...]`: runs npm scripts at once and fails if any fails. `npm test`'s
// checks (the type check, the linters) each keep one core busy for most of a minute, one after the other they were
// the longest wait before the first test. Each script's output is held and printed whole when it ends, so two
// reports never interleave.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  process.stderr.write('Usage: node tools/side-by-side.mjs <script> [script...]\n');
  process.exit(2);
}

const results = await Promise.all(scripts.map(run));
const failed = results.filter(({ code }) => code !== 0).map(({ script }) => script);
if (failed.length > 0) {
  process.stderr.write(`npm run ${failed.join(', npm run ')} failed\n`);
  process.exit(1);
}

/** `npm run --silent <script>`, its output held until it ends. */
function run(script) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code) => {
      process.stdout.write(Buffer.concat(output));
      resolve({ script, code });
    });
  });
}
