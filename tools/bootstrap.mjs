// Runs before `npm test`, `npm run dev` and the other entry scripts, on whatever Node is on PATH (even an old
// one): it installs the locked npm dependencies when they are missing or differ from package-lock.json.
// Everything after it runs on the Node 24 binary that the `node` devDependency puts in node_modules/.bin.
// Plain JavaScript without dependencies. Progress goes to stderr, so scripts printing JSON on stdout stay clean.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const node24 = `${root}/node_modules/.bin/node`;

if (!installedAsLocked() || !existsSync(node24)) {
  process.stderr.write('Installing npm dependencies from package-lock.json (first run or changed lockfile)...\n');
  const started = Date.now();
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: root,
    stdio: ['ignore', process.stderr, process.stderr],
  });
  if (result.status !== 0) {
    process.stderr.write(`npm ci failed with exit code ${result.status}\n`);
    process.exit(result.status ?? 1);
  }
  process.stderr.write(`Dependencies installed in ${Math.round((Date.now() - started) / 1000)} s.\n`);
}

// The scripts after this one need the Node 24 that the `node` package installs (its install script must be allowed
// in package.json `allowScripts`); say so plainly instead of failing later on an old Node.
if (!existsSync(node24)) {
  process.stderr.write('node_modules/.bin/node is missing: the `node` package did not install its binary (see allowScripts in package.json).\n');
  process.exit(1);
}

/** Compares the lockfile with npm's record of what is installed (node_modules/.package-lock.json). */
function installedAsLocked() {
  const installedFile = `${root}/node_modules/.package-lock.json`;
  if (!existsSync(installedFile)) return false;
  const locked = JSON.parse(readFileSync(`${root}/package-lock.json`, 'utf8')).packages;
  const installed = JSON.parse(readFileSync(installedFile, 'utf8')).packages;
  return Object.entries(locked).every(([path, entry]) => {
    if (path === '') return true;
    // Optional packages for other platforms (e.g. sharp's macOS binaries) are never installed here.
    if (!installed[path]) return entry.optional === true;
    return installed[path].version === entry.version;
  });
}
