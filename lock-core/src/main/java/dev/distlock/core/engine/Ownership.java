package dev.distlock.core.engine;

import dev.distlock.core.spi.BackendLease;

/**
 * How many times one owner has acquired a key, and the hold that backs those acquisitions now. After a loss, a new
 * acquisition puts a fresh hold in its place and the count goes on, so every acquisition still has one release. The
 * key state's monitor guards it.
 */
final class Ownership<L extends BackendLease> {

    final KeyState<L> keyState;
    /** The owning thread, or null for a hold that belongs to its handle. */
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
     * Gives back one acquisition. The last one ends the hold.
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
