package dev.distlock.spring.actuate;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Graceful shutdown of locking. When the context stops, new {@code @DistributedLock} and {@code @DistributedSemaphore}
 * methods are refused, and running ones may finish within {@code spring.lifecycle.timeout-per-shutdown-phase}. The
 * registries close after this phase and release this instance's remaining holds.
 */
final class LockShutdown implements SmartLifecycle {

    /** Between Boot's graceful web shutdown ({@code DEFAULT_PHASE - 1024}) and web server stop ({@code - 2048}). */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1536;

    private static final Logger log = LoggerFactory.getLogger(LockShutdown.class);

    private final LockedMethodGate gate;
    private final Duration timeout;
    private volatile boolean running;

    LockShutdown(LockedMethodGate gate, Duration timeout) {
        this.gate = gate;
        this.timeout = timeout;
    }

    @Override
    public void start() {
        gate.open();
        running = true;
    }

    @Override
    public void stop() {
        gate.close();
        try {
            if (!gate.awaitIdle(timeout)) {
                log.warn(
                        "{} @DistributedLock or @DistributedSemaphore method(s) still running after the shutdown"
                                + " phase timeout ({}); their locks and permits are released when the lock registry"
                                + " closes, and their late writes carry"
                                + " tokens the next holder's supersede. Raise"
                                + " spring.lifecycle.timeout-per-shutdown-phase to let them finish.",
                        gate.running(),
                        timeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            running = false;
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
