// `node tools/side-by-side.mjs <script> [script...] [-- <command> [args...]]`: runs npm scripts and a command at once,
// and fails if any of them fails. `npm test` runs its checks (the type check, the linters) beside the suite: the
// checks keep a core busy for most of a minute each, which before the first test was the longest wait, while the
// suite leaves a core idle for part of its run. The scripts run at the lowest CPU priority, so that they take mostly
// what the command leaves idle. The command's output is shown as it comes; each script's is held and printed whole
// when it ends (usually early in the suite's run; after its closing line when the command is one short file).
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { constants, setPriority } from 'node:os';

const separator = process.argv.indexOf('--');
const scripts = process.argv.slice(2, separator === -1 ? undefined : separator);
const command = separator === -1 ? [] : process.argv.slice(separator + 1);
if (scripts.length === 0 && command.length === 0) {
  process.stderr.write('Usage: node tools/side-by-side.mjs <script> [script...] [-- <command> [args...]]\n');
  process.exit(2);
}

// A Ctrl-C reaches the whole foreground process group; a signal sent to this process alone (a supervisor's SIGTERM)
// is passed on to everything it started.
const children = new Set();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => children.forEach((child) => child.kill(signal)));

const results = await Promise.all([...scripts.map(runScript), ...(command.length > 0 ? [runCommand(command)] : [])]);
const failed = results.filter(({ code }) => code !== 0).map(({ name }) => name);
if (failed.length > 0) {
  process.stderr.write(`${failed.join(', ')} failed\n`);
  process.exit(1);
}

/** `npm run --silent <script>` at the lowest priority (its children inherit it), its output held until it ends. */
function runScript(script) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    lowerPriority(child.pid);
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code) => {
      process.stdout.write(Buffer.concat(output));
      resolve({ name: `npm run ${script}`, code });
    });
  });
}

/**
 * The lowest priority for the script, straight after the spawn: long before npm has loaded and started the script's
 * own processes, which inherit it. Where the system refuses, the script runs at the usual priority.
 */
function lowerPriority(pid) {
  try {
    if (pid !== undefined) setPriority(pid, constants.priority.PRIORITY_LOW);
  } catch (error) {
    process.stderr.write(`side-by-side: the checks run at the usual priority (${error.message})\n`);
  }
}

/** The command with its output as it comes. */
function runCommand([file, ...args]) {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    children.add(child);
    child.on('error', (error) => {
      process.stderr.write(`${file}: ${error.message}\n`);
      resolve({ name: file, code: 127 });
    });
    child.on('close', (code) => resolve({ name: [file, ...args].join(' '), code }));
  });
}
