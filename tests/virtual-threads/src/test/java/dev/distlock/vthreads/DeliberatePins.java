package dev.distlock.vthreads;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** Blocking waits made on purpose where a virtual thread may be pinned, for the controls of {@link PinnedWaits}. */
final class DeliberatePins {

    private static final long PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** Parks inside a class initialiser: the VM frame under it pins the carrier on every JDK. */
    static void parkWhileInitialisingAClass() {
        ParksInItsInitialiser.touch();
    }

    /** Parks while holding a monitor: pins the carrier before JDK 24 (JEP 491), not since. */
    static void parkHoldingAMonitor(Object monitor) {
        synchronized (monitor) {
            LockSupport.parkNanos(PARK_NANOS);
        }
    }

    /** Holds a monitor for a moment without blocking: never reported, on any JDK. */
    static int shortSynchronizedSection(Object monitor, int value) {
        synchronized (monitor) {
            return value + 1;
        }
    }

    private static final class ParksInItsInitialiser {
        static {
            LockSupport.parkNanos(PARK_NANOS);
        }

        static void touch() {}
    }

    private DeliberatePins() {}
}
