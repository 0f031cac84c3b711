package dev.distlock.spring.web;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockObserver;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs a lock backend's outage once, with a WARN at the first failure and INFO when any registry gets an answer
 * again. Failures in between go to DEBUG.
 */
final class BackendOutages implements LockObserver {

    private static final Logger log = LoggerFactory.getLogger(BackendOutages.class);

    /** The backend and address of the outage in progress, or null while calls are answered. */
    private final AtomicReference<String> failing = new AtomicReference<>();

    /**
     * Records a failed call.
     *
     * @param consequence what the application does about it, for the log (e.g. "answering 503")
     */
    void failed(LockBackendException e, String consequence) {
        String backend = e.backend() + " at " + e.address();
        if (failing.compareAndSet(null, backend)) {
            log.warn(
                    "Lock backend {} is unavailable; {} until it answers again: {}",
                    backend,
                    consequence,
                    e.getMessage());
        } else {
            log.debug("Lock backend {} still unavailable: {}", backend, e.getMessage());
        }
    }

    @Override
    public void acquisitionEnded(String backend, String key, Outcome outcome, Duration waited) {
        if (outcome == Outcome.ACQUIRED || outcome == Outcome.TIMEOUT) {
            String ended = failing.getAndSet(null);
            if (ended != null) {
                log.info("Lock backend {} answers again", ended);
            }
        }
    }
}
