package dev.distlock.core.engine;

import dev.distlock.core.spi.BackendLease;

/**
 * Reentrancy: how many times one owner (a thread, or for a handle-owned hold the handle) has
 * acquired a key, and the hold that currently backs those acquisitions. When the hold's lease was
 * lost, a new acquisition by the same owner puts a fresh hold in its place; the count goes on, so
 * every acquisition is still matched by one release. State is guarded by the key state's monitor.
 */
final class Ownership<L extends BackendLease> {

    final KeyState<L> keyState;
    /** The owning thread; null for a hold that belongs to its handle. */
    final Thread thread;

    int count;
    Hold<L> hold;

    Ownership(KeyState<L> keyState, Thread thread, Hold<L> hold) {
        this.keyState = keyState;
        this.thread = thread;
        this.hold = hold;
        this.count = 1;
    }

    int count() {
        synchronized (keyState) {
            return count;
        }
    }

    Hold<L> hold() {
        synchronized (keyState) {
            return hold;
        }
    }

    /**
     * Gives back one acquisition; the last one ends the hold.
     *
     * @return the hold to end, or null when acquisitions remain
     */
    Hold<L> releaseOne() {
        synchronized (keyState) {
            if (count == 0 || --count > 0) {
                return null;
            }
            keyState.unregister(this);
            return hold;
        }
    }
}
