package dev.distlock.core.spi;

import java.util.concurrent.Semaphore;

/**
 * The local state of one key in one registry, kept only while some thread holds or waits
 * for the key. The gate lets one thread of the registry at a time work on the server; it is
 * a semaphore rather than a lock because a hold may be closed from another thread.
 */
final class KeyState<L extends BackendLease> {

    final String fullKey;
    final Semaphore gate = new Semaphore(1, true);

    /** Threads using this state; guarded by the registry map's compute. */
    int references;

    private Thread owner;
    private Hold<L> hold;

    KeyState(String fullKey) {
        this.fullKey = fullKey;
    }

    /** Adds a reentrant hold when {@code thread} owns the key; null otherwise. */
    synchronized Hold<L> joinIfOwner(Thread thread) {
        if (owner == thread && hold != null) {
            hold.count++;
            return hold;
        }
        return null;
    }

    synchronized void begin(Thread thread, Hold<L> newHold) {
        owner = thread;
        hold = newHold;
    }

    synchronized Hold<L> ownedBy(Thread thread) {
        return owner == thread ? hold : null;
    }

    /** Called with this state's monitor held. */
    void clear(Hold<L> ended) {
        if (hold == ended) {
            owner = null;
            hold = null;
        }
    }
}
