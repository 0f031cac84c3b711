package dev.distlock.core.engine;

import dev.distlock.core.spi.BackendLease;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The local state of one key in one registry, kept while some thread holds or waits for the key. Its gate lets one
 * live hold of the registry at a time work on the server. The gate is a semaphore because a hold may end on another
 * thread than its owner's. {@link Hold#freeGate()} or the failed acquisition gives each permit back once.
 */
final class KeyState<L extends BackendLease> {

    final String fullKey;
    final Semaphore gate;

    /** Ownerships and acquirers using this state. 0 once the last one left, and the state is then dead. */
    private final AtomicInteger references = new AtomicInteger(1);

    /** Thread-owned ownerships, usually one. A second exists while a lost hold awaits release. */
    private final Map<Thread, Ownership<L>> byThread = new HashMap<>(2);

    KeyState(String fullKey, int gatePermits) {
        this.fullKey = fullKey;
        this.gate = new Semaphore(gatePermits, true);
    }

    /** One more user, unless the state is dead already. */
    boolean retain() {
        for (int count = references.get(); count > 0; count = references.get()) {
            if (references.compareAndSet(count, count + 1)) {
                return true;
            }
        }
        return false;
    }

    /** One user less. True when that was the last one. */
    boolean unretain() {
        return references.decrementAndGet() == 0;
    }

    synchronized Ownership<L> ownedBy(Thread thread) {
        return byThread.get(thread);
    }

    synchronized void register(Ownership<L> ownership) {
        if (ownership.thread != null) {
            byThread.put(ownership.thread, ownership);
        }
    }

    /** Called with this state's monitor held. */
    void unregister(Ownership<L> ownership) {
        if (ownership.thread != null) {
            byThread.remove(ownership.thread, ownership);
        }
    }
}
