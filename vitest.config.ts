import { defineConfig } from 'vitest/config';
import HeavyFirstSequencer from './test/support/heavy-first-sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One PostgreSQL cluster, one Temporal dev server and the time-skipping server's launcher for the whole run;
    // every test file then gets its own database and task queue (test/support/).
    // The default report, then one plain closing line (test/support/closing-line-reporter.ts).
    reporters: ['default', './test/support/closing-line-reporter.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup/trust-dev-ca.ts', 'test/setup/own-ports-and-scratch.ts'],
    pool: 'forks',
    // A file per core at a time, not vitest's default of one fewer: most files spend their time waiting on servers
    // (Temporal's timers, processes they start and kill). More than one per core stretches the CPU-bound fuzzing;
    // one per core keeps the margin that a suite with timeouts needs.
    maxWorkers: '100%',
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
