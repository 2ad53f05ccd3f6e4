import { relative } from 'node:path';
import type { Reporter, TestCase } from 'vitest/node';

/**
 * Names every test that passed only on a retry, at the end of the run. The default reporter shows a passing
 * test only when it was slow or its file failed, so without this a retried test would pass unseen in CI.
 */
export default class FlakyReporter implements Reporter {
  private readonly flaky: string[] = [];

  onTestCaseResult(testCase: TestCase): void {
    const diagnostic = testCase.diagnostic();
    if (diagnostic?.flaky)
      this.flaky.push(
        `${relative(process.cwd(), testCase.module.moduleId)} › ${testCase.fullName} (passed after ${diagnostic.retryCount} retry)`,
      );
  }

  onTestRunEnd(): void {
    if (this.flaky.length === 0) return;
    console.log(`\nFLAKY: ${this.flaky.length} test(s) passed only on a retry; each is a bug to chase:`);
    for (const line of this.flaky) console.log(`  ${line}`);
  }
}
