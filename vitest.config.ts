import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { toolchainCacheDir } from './src/local/embedded/cache-dir.ts';
import HeavyFirstSequencer from './test/support/heavy-first-sequencer.ts';
import { testWorkers } from './test/support/test-workers.ts';

// Vitest's caches (each file's last duration, which orders the files, and the transformed modules) in the toolchain
// cache, outside the checkout, so that a fresh clone starts with them. One per lockfile: inside node_modules, where
// vitest keeps them by default, they went with an install.
const lockfile = createHash('sha256')
  .update(readFileSync(new URL('package-lock.json', import.meta.url)))
  .digest('hex')
  .slice(0, 16);
const cacheDir = join(toolchainCacheDir(), 'vitest', lockfile);

export default defineConfig({
  cacheDir,
  test: {
    fsModuleCachePath: join(cacheDir, 'modules'),
    include: ['test/**/*.test.ts'],
    // One PostgreSQL cluster, one Temporal dev server and the time-skipping server's launcher for the whole run;
    // every test file then gets its own database and task queue (test/support/).
    // The default report, then one plain closing line (test/support/closing-line-reporter.ts).
    reporters: ['default', './test/support/closing-line-reporter.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup/trust-dev-ca.ts', 'test/setup/own-ports-and-scratch.ts', 'test/setup/temporal-runtime.ts'],
    pool: 'forks',
    // Files share a worker process and its loaded modules, one after another: starting a process and importing the
    // service for every file cost more CPU than most files' tests. What a process may hold only once is installed
    // once (test/support/temporal-runtime-log.ts), and the service builds what it derives from openapi.yaml once per
    // process (src/common/once-per-key.ts).
    isolate: false,
    // Vitest caps a percentage at the number of cores: the count is a number (test/support/test-workers.ts).
    maxWorkers: testWorkers(),
    // The longest files first, also on a clean clone (test/support/heavy-first-sequencer.ts).
    sequence: { sequencer: HeavyFirstSequencer },
    // expect.poll() waits as long as eventually() does (test/support/eventually.ts): vitest's 1 s made the browser
    // tests fail whenever the machine was busy (a page's answer after 1.2 s is an answer, not a bug).
    expect: { poll: { timeout: 15_000 } },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    teardownTimeout: 60_000,
  },
});
