package dev.distlock.spring.actuate;

import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockObserver;
import dev.distlock.core.LockRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lease losses and backend errors of each registry since start, counted from its events, which the health indicator
 * and the endpoint report.
 */
public final class LockStatistics {

    private final Map<LockRegistry, Counts> counts = new ConcurrentHashMap<>();

    /** The observer that counts {@code registry}'s events. */
    LockObserver observerFor(LockRegistry registry) {
        return counts.computeIfAbsent(registry, r -> new Counts());
    }

    /** Holds of {@code registry} whose lease was lost since start. */
    public long leaseLosses(LockRegistry registry) {
        Counts registryCounts = counts.get(registry);
        return registryCounts == null ? 0 : registryCounts.leaseLosses.get();
    }

    /** Failed backend calls of {@code registry} since start. */
    public long backendErrors(LockRegistry registry) {
        Counts registryCounts = counts.get(registry);
        return registryCounts == null ? 0 : registryCounts.backendErrors.get();
    }

    private static final class Counts implements LockObserver {

        final AtomicLong leaseLosses = new AtomicLong();
        final AtomicLong backendErrors = new AtomicLong();

        @Override
        public void leaseLost(HoldInfo hold, String reason) {
            leaseLosses.incrementAndGet();
        }

        @Override
        public void backendError(String backend, String key, RuntimeException error) {
            backendErrors.incrementAndGet();
        }
    }
}
