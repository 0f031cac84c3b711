package dev.distlock.core.spi;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import java.util.concurrent.atomic.AtomicBoolean;

/** One reentrant acquisition of a {@link Hold}; closing it gives back that one. */
final class Handle<L extends BackendLease> implements LockHandle {

    private final Hold<L> hold;
    private final String key;
    private final AtomicBoolean closed = new AtomicBoolean();

    Handle(Hold<L> hold, String key) {
        this.hold = hold;
        this.key = key;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public FencingToken token() {
        return hold.lease.token();
    }

    @Override
    public boolean isValid() {
        return !closed.get() && hold.isValid();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            hold.releaseOne();
        }
    }

    @Override
    public String toString() {
        return "LockHandle[key=" + key + ", token=" + token() + ", valid=" + isValid() + "]";
    }
}
