package dev.distlock.core.engine;

import dev.distlock.core.LockObserver;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.LockBackend;
import java.time.Duration;
import java.util.Set;

/**
 * The engine's {@link HoldEvents}: keeps the set of live holds, writes the WARN of a lost lease,
 * tells the observers, and runs owners' lease-loss callbacks off the thread that found the loss.
 */
final class EngineEvents<L extends BackendLease> implements HoldEvents<L> {

    private final LockBackend<L> backend;
    private final Set<Hold<L>> holds;
    private final Observers observers;
    private final LeaseKeeper keeper;

    EngineEvents(LockBackend<L> backend, Set<Hold<L>> holds, Observers observers, LeaseKeeper keeper) {
        this.backend = backend;
        this.holds = holds;
        this.observers = observers;
        this.keeper = keeper;
    }

    @Override
    public String describe() {
        return backend.name() + " (" + backend.address() + ")";
    }

    /** A hold was granted: it is live from now on. */
    void started(Hold<L> hold) {
        holds.add(hold);
        if (!observers.isEmpty()) {
            observers.tell(observer -> observer.holdStarted(hold.info(backend.name())));
        }
    }

    /** An operator removed {@code key}'s lock on the server; {@code evicted} is who held it, when known. */
    void forceReleased(String key, java.util.Optional<dev.distlock.core.LockHolder> evicted) {
        LockEngine.log.warn(
                "Lock '{}' on {} was force-released; evicted holder: {}. Its writes carrying fencing token {} or"
                        + " lower can be refused.",
                key,
                describe(),
                evicted.map(dev.distlock.core.LockHolder::holder).orElse("unknown"),
                evicted.map(holder -> holder.token().toString()).orElse("unknown"));
    }

    @Override
    public void lost(Hold<L> hold, String reason) {
        LockEngine.log.warn(
                "Lock '{}' on {} lost its lease: {}. Its holder must stop writing; writes carrying fencing token {}"
                        + " can be refused.",
                hold.key,
                describe(),
                reason,
                hold.token());
        observers.tell(observer -> observer.leaseLost(hold.info(backend.name()), reason));
    }

    @Override
    public void leaving(Hold<L> hold) {
        holds.remove(hold);
    }

    @Override
    public void ended(Hold<L> hold) {
        if (!observers.isEmpty()) {
            observers.tell(observer -> observer.holdEnded(hold.info(backend.name())));
        }
    }

    @Override
    public void backendError(String fullKey, RuntimeException error) {
        observers.tell(observer -> observer.backendError(backend.name(), fullKey, error));
    }

    /** An acquisition that started at {@code startNanos} (System.nanoTime) ended with {@code outcome}. */
    void acquisitionEnded(String key, LockObserver.Outcome outcome, long startNanos) {
        if (observers.isEmpty()) {
            return;
        }
        Duration waited = Duration.ofNanos(System.nanoTime() - startNanos);
        observers.tell(observer -> observer.acquisitionEnded(backend.name(), key, outcome, waited));
    }

    @Override
    public void callback(Hold<L> hold, Runnable callback, boolean now) {
        if (now) {
            runCallback(hold, callback);
        } else {
            keeper.run(() -> runCallback(hold, callback));
        }
    }

    private void runCallback(Hold<L> hold, Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            LockEngine.log.warn("A lease-loss callback of lock '{}' on {} failed", hold.key, describe(), e);
        }
    }
}
