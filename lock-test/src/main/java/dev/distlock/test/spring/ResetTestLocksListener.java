package dev.distlock.test.spring;

import dev.distlock.test.LockControl;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.support.AbstractTestExecutionListener;

/**
 * Resets every {@link LockControl} of the test's application context after each test method, so
 * other instances' holds, outages and the history of one test never reach the next.
 */
public final class ResetTestLocksListener extends AbstractTestExecutionListener {

    @Override
    public int getOrder() {
        return 2_000; // after the dependency injection listener, as Spring's own mock reset
    }

    @Override
    public void afterTestMethod(TestContext testContext) {
        if (testContext.hasApplicationContext()) {
            testContext
                    .getApplicationContext()
                    .getBeanProvider(LockControl.class)
                    .orderedStream()
                    .forEach(LockControl::reset);
        }
    }
}
