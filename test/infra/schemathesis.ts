import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toolchainCacheDir } from '../../src/local/embedded/cache-dir.ts';
import { runCommand } from '../../src/local/embedded/run-command.ts';
import { messageOf } from '../../src/common/errors/caught.ts';

// schemathesis (PyPI) fuzzes the running service against openapi.yaml (test/fuzz/). Pinned with everything it pulls
// in (test/fuzz/requirements.txt): checks and data generation change between releases, and a fixed seed replays the
// same cases only with the same versions.
const requirements = fileURLToPath(new URL('../fuzz/requirements.txt', import.meta.url));
const pinned = /^schemathesis==(.+)$/m.exec(readFileSync(requirements, 'utf8'));
if (!pinned) throw new Error(`${requirements} must pin schemathesis (schemathesis==<version>).`);
const schemathesisVersion = pinned[1];

// Lines of pip's output worth showing while it works.
const progressLine = /^(Collecting|Downloading|Installing collected|Successfully installed|ERROR)/;

/** How to run the installed schemathesis: `python` then `args` before schemathesis's own arguments. */
export type SchemathesisCommand = { python: string; args: string[] };

/**
 * Installs schemathesis once into a Python virtual environment in the toolchain cache (a no-op when it is there)
 * and returns how to run it. Needs python3 (3.9+) with the venv module, and PyPI.
 */
export async function ensureSchemathesis(log: (message: string) => void): Promise<SchemathesisCommand> {
  const directory = join(toolchainCacheDir(), `schemathesis-${schemathesisVersion}`);
  // Run as a module through the environment's python: pip's `bin/schemathesis` script names the staging directory
  // in its first line, while the environment itself keeps working after the rename below.
  const command = { python: join(directory, 'bin', 'python'), args: ['-m', 'schemathesis.cli'] };
  if (existsSync(command.python)) return command;

  log(`Installing schemathesis ${schemathesisVersion} from PyPI into ${directory} (first run only; about 15 s)...`);
  const started = Date.now();
  // Build into a private directory and rename, so a concurrent or interrupted install never leaves a half one.
  const staging = `${directory}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    await runCommand('python3', ['-m', 'venv', staging]);
    await runCommand(join(staging, 'bin', 'python'), ['-m', 'pip', 'install', '--no-input', '--requirement', requirements], {
      onLine: (line) => {
        if (progressLine.test(line)) log(`pip: ${line.trim()}`);
      },
    });
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    const reason = messageOf(error);
    throw new Error(`Could not install schemathesis ${schemathesisVersion} (python3 -m venv, then pip install):\n${reason}`, { cause: error });
  }
  try {
    renameSync(staging, directory);
  } catch (error) {
    // Another test run finished the same install first: use that one.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(command.python)) throw error;
  }
  log(`schemathesis installed in ${Math.round((Date.now() - started) / 1000)} s.`);
  return command;
}
