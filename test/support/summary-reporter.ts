/**
 * Ends the test output with one plain line, `tests: N passed, N failed, N skipped`, that CI and people
 * read without knowing vitest's own summary format. A file that failed outside its tests (it did not load,
 * or a setup hook failed) and an unhandled error each count as one failure, as they fail the run.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown> = []): void {
    const counts = { passed: 0, failed: unhandledErrors.length, skipped: 0 };
    for (const testModule of testModules) {
      let failedTests = 0;
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') failedTests++;
        else counts.skipped++;
      }
      counts.failed += testModule.state() === 'failed' && failedTests === 0 ? 1 : failedTests;
    }
    process.stdout.write(`\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
