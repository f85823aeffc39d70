import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import suite from '../../../vitest.config.ts';

// The suite's set-up (servers, prebuilt bundle) for the history recorder alone, which `npm test` does not run.
export default defineConfig({
  root: fileURLToPath(new URL('../../..', import.meta.url)),
  test: { ...suite.test, include: ['test/workflows/recording/record-histories.ts'], reporters: ['default'] },
});
