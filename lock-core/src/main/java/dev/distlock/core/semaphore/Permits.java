package dev.distlock.core.semaphore;

import java.util.ArrayList;
import java.util.List;

/**
 * The permits one acquisition of a {@link LeasedSemaphore} got, all at once. Each {@link Permit} has its own lease,
 * token and loss notice; {@link #close()} gives back every permit not yet given back.
 */
public final class Permits implements AutoCloseable {

    private final String semaphore;
    private final List<Permit> permits;
    private final List<Runnable> lostCallbacks = new ArrayList<>();
    private boolean lost;

    Permits(String semaphore, List<Permit> permits) {
        this.semaphore = semaphore;
        this.permits = List.copyOf(permits);
        for (Permit permit : this.permits) {
            permit.onLost(this::lost);
        }
    }

    /** The semaphore's name. */
    public String semaphore() {
        return semaphore;
    }

    /** The permits, in slot order. */
    public List<Permit> list() {
        return permits;
    }

    /** How many permits this acquisition got. */
    public int count() {
        return permits.size();
    }

    /** True while every permit is held and none is known lost. */
    public boolean isValid() {
        for (Permit permit : permits) {
            if (!permit.isValid()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Runs {@code callback} once when the first of these permits is known lost (its lease ran out, was refused, or
     * its key was force-released), never on a normal release. Added after a loss, it runs at once. Runs on a registry
     * thread and must not block.
     */
    public void onLost(Runnable callback) {
        boolean now;
        synchronized (lostCallbacks) {
            now = lost;
            if (!now) {
                lostCallbacks.add(callback);
            }
        }
        if (now) {
            callback.run();
        }
    }

    /**
     * Gives back every permit not given back yet. A release that fails on the server is thrown after the others were
     * given back (the failed permit's key frees when its lease ends).
     */
    @Override
    public void close() {
        RuntimeException failure = null;
        for (Permit permit : permits) {
            try {
                permit.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void lost() {
        List<Runnable> callbacks;
        synchronized (lostCallbacks) {
            if (lost) {
                return;
            }
            lost = true;
            callbacks = List.copyOf(lostCallbacks);
            lostCallbacks.clear();
        }
        for (Runnable callback : callbacks) {
            callback.run();
        }
    }

    @Override
    public String toString() {
        return "Permits[" + semaphore + ", " + permits + "]";
    }
}
