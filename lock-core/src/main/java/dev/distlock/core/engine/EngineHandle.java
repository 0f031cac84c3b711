package dev.distlock.core.engine;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.spi.BackendLease;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One acquisition: closing it gives back that one to its {@link Ownership}. It keeps the hold
 * it was granted under, so after a loss it stays invalid even when its owner took a fresh hold.
 */
final class EngineHandle<L extends BackendLease> implements LockHandle {

    private final LockEngine<L> engine;
    private final Ownership<L> ownership;
    private final Hold<L> hold;
    private final AtomicBoolean closed = new AtomicBoolean();

    EngineHandle(Acquirer.Acquired<L> acquired) {
        this.engine = acquired.engine();
        this.ownership = acquired.ownership();
        this.hold = acquired.hold();
    }

    @Override
    public String key() {
        return hold.key;
    }

    @Override
    public FencingToken token() {
        return hold.token();
    }

    @Override
    public boolean isValid() {
        return !closed.get() && hold.isValid();
    }

    @Override
    public void onLost(Runnable callback) {
        if (hold.addLostCallback(callback)) {
            engine.events.callback(hold, callback, true);
        }
    }

    @Override
    public boolean extend(Duration leaseTime) {
        return !closed.get() && engine.renewals.extend(hold, leaseTime);
    }

    @Override
    public void holdAtLeast(Duration minimum) {
        hold.holdAtLeast(minimum);
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            release(engine, ownership);
        }
    }

    /** Gives back one acquisition of {@code ownership}; the last one ends its hold and the key's local state. */
    static <L extends BackendLease> void release(LockEngine<L> engine, Ownership<L> ownership) {
        Hold<L> last = ownership.releaseOne();
        if (last == null) {
            return;
        }
        try {
            // A lease that ran out is lost, whether or not the lease keeper said so yet.
            engine.leaseEnds.loseIfExpired(last);
            if (!engine.releases.lingers(last)) {
                engine.releases.end(last, Hold.Ending.RELEASED);
            }
        } finally {
            engine.keys.unretain(ownership.keyState);
        }
    }

    @Override
    public String toString() {
        return "LockHandle[key=" + key() + ", token=" + token() + ", valid=" + isValid() + "]";
    }
}
