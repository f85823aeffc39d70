import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One PostgreSQL cluster, one Temporal dev server and the time-skipping server's launcher for the whole run;
    // every test file then gets its own database and task queue (test/support/).
    // The default report, then one plain closing line (test/support/closing-line-reporter.ts).
    reporters: ['default', './test/support/closing-line-reporter.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup/trust-dev-ca.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    teardownTimeout: 60_000,
  },
});
