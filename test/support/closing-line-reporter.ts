import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends vitest's report with one plain line, `tests: N passed, N failed` (`, N skipped` when any were): the summary
 * that CI tools read without knowing vitest's own banner. Printed after the default reporter's summary.
 */
export default class ClosingLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      const states = [...module.children.allTests()].map((test) => test.result().state);
      for (const state of states) {
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') counts.failed += 1;
        else if (state === 'skipped') counts.skipped += 1;
      }
      // A file that failed before collecting its tests (an import error, a failing beforeAll) counts as one failure.
      if (module.state() === 'failed' && !states.includes('failed')) counts.failed += 1;
    }
    counts.failed += unhandledErrors.length;
    const skipped = counts.skipped > 0 ? `, ${counts.skipped} skipped` : '';
    process.stdout.write(`\ntests: ${counts.passed} passed, ${counts.failed} failed${skipped}\n`);
  }
}
