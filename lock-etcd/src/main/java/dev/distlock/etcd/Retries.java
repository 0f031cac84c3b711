package dev.distlock.etcd;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.Deadline;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs a step of requests to etcd again after a failure that may pass, with back-off, while the wait lasts. */
final class Retries {

    private static final long FIRST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long LAST_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final Logger log = LoggerFactory.getLogger(Attempt.class);

    private Retries() {}

    /** A step of an attempt, one or more requests safe to run again after a failure. */
    @FunctionalInterface
    interface Step<T> {
        T run() throws InterruptedException;
    }

    /**
     * Runs {@code step}, again after a {@link EtcdRequests#isTransient} failure while the wait
     * lasts. Then the last failure is thrown. A zero wait gets one try.
     */
    static <T> T retried(Deadline deadline, String key, Step<T> step) throws InterruptedException {
        long pause = FIRST_RETRY_NANOS;
        while (true) {
            try {
                return step.run();
            } catch (LockBackendException e) {
                if (!EtcdRequests.isTransient(e.getCause()) || deadline.hasPassed()) {
                    throw e;
                }
                log.debug("etcd request for lock '{}' failed; trying again while the wait lasts", key, e);
                TimeUnit.NANOSECONDS.sleep(Math.min(pause, deadline.remainingNanos()));
                if (deadline.hasPassed()) {
                    throw e;
                }
                pause = Math.min(LAST_RETRY_NANOS, pause * 2);
            }
        }
    }
}
