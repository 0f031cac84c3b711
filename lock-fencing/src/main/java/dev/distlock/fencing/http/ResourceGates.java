package dev.distlock.fencing.http;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One request at a time per fenced resource in this instance, from the fence check to the end of
 * the handler. Otherwise a request admitted with token 10 whose handler is slow could write after a
 * request admitted with token 11 wrote. Semaphores, not locks, because an async request ends on
 * another thread than it began. A gate lives while some request holds or waits for it.
 */
final class ResourceGates {

    private final ConcurrentMap<String, Gate> gates = new ConcurrentHashMap<>();

    /** The gate of {@code resource}, entered. Null when it did not open within {@code wait}. */
    Gate enter(String resource, Duration wait) throws InterruptedException {
        Gate gate = gates.compute(resource, (name, current) -> {
            Gate joined = current == null ? new Gate(name) : current;
            joined.users++;
            return joined;
        });
        boolean entered = false;
        try {
            entered = gate.permit.tryAcquire(wait.toNanos(), TimeUnit.NANOSECONDS);
        } finally {
            if (!entered) {
                leaveMap(gate);
            }
        }
        return entered ? gate : null;
    }

    void leave(Gate gate) {
        gate.permit.release();
        leaveMap(gate);
    }

    /** How many resources have a gate now (for tests: gates do not pile up). */
    int size() {
        return gates.size();
    }

    private void leaveMap(Gate gate) {
        gates.computeIfPresent(gate.resource, (name, current) -> --current.users == 0 ? null : current);
    }

    static final class Gate {

        private final String resource;
        private final Semaphore permit = new Semaphore(1);
        private int users; // changed only inside the map's compute for this key

        Gate(String resource) {
            this.resource = resource;
        }
    }
}
