// `node tools/launch.mjs <command> [args...]`: how every npm script a person types starts. It runs on whatever Node
// is on PATH (18 or later), makes the checkout ready (tools/bootstrap.mjs), then runs the command with the project's
// Node 24 first on PATH. The hand-over has to happen in a new process: a shell that ran `node tools/bootstrap.mjs &&
// node main.ts` looked `node` up once, before the bootstrap installed Node 24, and ran the second `node` on the
// machine's own (a .ts file then fails on Node 20 with ERR_UNKNOWN_FILE_EXTENSION).
import { spawn } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { bootstrap, cacheDir, projectNodeBin } from './bootstrap.mjs';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('Usage: node tools/launch.mjs <command> [args...]\n');
  process.exit(2);
}
bootstrap();

const child = spawn(command, args, {
  stdio: 'inherit',
  env: {
    ...process.env,
    PATH: `${projectNodeBin}${delimiter}${process.env.PATH ?? ''}`,
    // V8's compiled code of every module kept on disk (Node's module compile cache), for the command and every
    // process it starts: the api, the worker and the CLI load in about two thirds of the time once cached, which the
    // test suite, starting many of them, feels most. Node checks each entry against its module's source, so a stale
    // entry is only a miss.
    NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(cacheDir, 'node-compile-cache'),
  },
});
// A Ctrl-C reaches the whole foreground process group, the command included; a signal sent to this process alone
// (a supervisor's SIGTERM) is passed on, so the command always hears it and decides how to stop.
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
for (const signal of forwarded) process.on(signal, () => child.kill(signal));
child.on('error', (error) => {
  process.stderr.write(`${command}: ${error.message}\n`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  if (signal === null) process.exit(code ?? 1);
  // Ended by a signal: end the same way, so whoever started this sees what the command saw.
  for (const name of forwarded) process.removeAllListeners(name);
  process.kill(process.pid, signal);
});
