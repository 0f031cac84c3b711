package dev.distlock.core.engine;

import dev.distlock.core.LockObserver;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** The observers of one engine: each event reaches each of them once; one that fails is logged. */
final class Observers {

    private final List<LockObserver> observers = new CopyOnWriteArrayList<>();

    void add(LockObserver observer) {
        observers.add(Objects.requireNonNull(observer, "observer"));
    }

    /** True when nobody observes: callers skip building events. */
    boolean isEmpty() {
        return observers.isEmpty();
    }

    void tell(Consumer<LockObserver> event) {
        if (observers.isEmpty()) {
            return;
        }
        for (LockObserver observer : observers) {
            try {
                event.accept(observer);
            } catch (RuntimeException e) {
                LockEngine.log.warn("Lock observer {} failed", observer, e);
            }
        }
    }
}
