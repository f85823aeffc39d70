import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import suite from '../../vitest.config.ts';

// `npm run chaos`: the suite's set-up (servers, prebuilt bundle) for the chaos runs alone, one at a time, which
// `npm test` does not run: each is minutes of load (docs/testing.md, "Chaos").
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  // Each run in a process of its own: a run is minutes of load, and none may inherit another's leftovers.
  test: { ...suite.test, include: ['test/chaos/**/*.chaos.ts'], maxWorkers: 1, isolate: true },
});
