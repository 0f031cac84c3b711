package dev.distlock.core.semaphore;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One granted permit. The hold of its slot's key ({@code <name>:permit:<slot>}), owned by this object, so any thread
 * may close it. Its token rises with every new hold of that slot, and is compared only with tokens of the same slot
 * (see {@code docs/semaphores.md}). Closing it gives this one permit back.
 */
public final class Permit implements LockHandle {

    private final int slot;
    private final LockHandle hold;
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile Runnable onEnd;

    Permit(int slot, LockHandle hold) {
        this.slot = slot;
        this.hold = hold;
    }

    /** Which slot of the semaphore this permit holds, from 0 to {@code permits - 1}. */
    public int slot() {
        return slot;
    }

    /** The slot's lock key, {@code <name>:permit:<slot>}. */
    @Override
    public String key() {
        return hold.key();
    }

    /** The fencing token of this hold of the slot. */
    @Override
    public FencingToken token() {
        return hold.token();
    }

    @Override
    public boolean isValid() {
        return hold.isValid();
    }

    @Override
    public void onLost(Runnable callback) {
        hold.onLost(callback);
    }

    @Override
    public boolean extend(Duration leaseTime) {
        return hold.extend(leaseTime);
    }

    @Override
    public void holdAtLeast(Duration minimum) {
        hold.holdAtLeast(minimum);
    }

    /** Gives this permit back. Closing twice gives it back once. */
    @Override
    public void close() {
        try {
            hold.close();
        } finally {
            end();
        }
    }

    /** Runs {@code onEnd} once, when this permit is given back or lost, whichever comes first. */
    void endsWith(Runnable onEnd) {
        this.onEnd = onEnd;
        hold.onLost(this::end);
    }

    private void end() {
        Runnable then = onEnd;
        if (then != null && ended.compareAndSet(false, true)) {
            then.run();
        }
    }

    @Override
    public String toString() {
        return "Permit[" + key() + ", token=" + token() + ", valid=" + isValid() + "]";
    }
}
