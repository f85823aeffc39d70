import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { toolchainCacheDir } from './cache-dir.ts';
import { runCommand } from './run-command.ts';

// The Temporal CLI runs the dev server (and its Web UI) for `npm run dev` and the test suite. It is built once from
// source through the Go module proxy (the only route to it from this network) and cached outside the repository.
// v1.5.1 is the newest tag that `go install` accepts: later tags carry a `replace` directive in go.mod.
const temporalCliVersion = '1.5.1';
const modulePath = 'github.com/temporalio/cli';

/** TEMPORAL_CLI, else a `temporal` on PATH, else the cached build (building it first if needed). */
export async function ensureTemporalCli(log: (message: string) => void = console.error): Promise<string> {
  if (process.env.TEMPORAL_CLI) return process.env.TEMPORAL_CLI;
  const onPath = findOnPath('temporal');
  if (onPath) return onPath;

  const directory = join(toolchainCacheDir(), `temporal-cli-${temporalCliVersion}`);
  const binary = join(directory, 'temporal');
  if (existsSync(binary)) return binary;

  if (!findOnPath('go')) {
    throw new Error('Building the Temporal CLI needs Go (https://go.dev). Install it, or set TEMPORAL_CLI to a temporal binary.');
  }
  log(`Building the Temporal CLI v${temporalCliVersion} with Go into ${directory} (first run only; about 3 minutes)...`);
  const started = Date.now();
  // Build into a private directory and rename, so a concurrent or interrupted build never leaves a broken binary.
  const staging = `${directory}.partial-${process.pid}`;
  mkdirSync(staging, { recursive: true });
  let downloaded = 0;
  let compiled = 0;
  const ticker = setInterval(() => {
    log(`  ... ${downloaded} modules downloaded, ${compiled} packages compiled, ${Math.round((Date.now() - started) / 1000)} s`);
  }, 15_000);
  try {
    await runCommand(
      'go',
      ['install', '-v', `-ldflags=-X ${modulePath}/temporalcli.Version=${temporalCliVersion}`, `${modulePath}/cmd/temporal@v${temporalCliVersion}`],
      {
        env: { ...process.env, GOBIN: staging, GOFLAGS: '-mod=mod', CGO_ENABLED: '0' },
        onLine: (line) => {
          if (line.startsWith('go: downloading')) downloaded += 1;
          else if (line.trim()) compiled += 1;
        },
      },
    );
  } finally {
    clearInterval(ticker);
  }
  rmSync(directory, { recursive: true, force: true });
  renameSync(staging, directory);
  log(`Temporal CLI built in ${Math.round((Date.now() - started) / 1000)} s.`);
  return binary;
}

function findOnPath(command: string): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(directory, command);
    if (directory && existsSync(candidate)) return candidate;
  }
  return undefined;
}
