package io.herald.devstack;

import java.time.Duration;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestPlan;

/**
 * Prints how long the test suite took when it used the Herald dev stack. Registered through {@code
 * META-INF/services}, so every module with the dev stack on its test class path reports.
 */
public final class HeraldSuiteListener implements TestExecutionListener {

  private volatile long startedNanos = System.nanoTime();

  @Override
  public void testPlanExecutionStarted(TestPlan testPlan) {
    startedNanos = System.nanoTime();
  }

  @Override
  public void testPlanExecutionFinished(TestPlan testPlan) {
    SharedStack.reportSuiteFinished(Duration.ofNanos(System.nanoTime() - startedNanos));
  }
}
