package dev.distlock.spring.leader;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.leader.Leader;
import dev.distlock.core.leader.LeaderObserver;
import dev.distlock.core.leader.LeaderSubscription;
import dev.distlock.core.leader.Leadership;
import dev.distlock.core.leader.ObserveOptions;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * Who leads, for any instance, candidate or not, read from the server of the application's {@link LockRegistry}.
 * {@link #leaderOf(String)} reads it once. The names of {@code distributed-lock.leadership.observed-names} (and any
 * asked for with {@link #observe(String)}) are followed from the context's start until its stop, and each change is
 * published as a {@link LeaderChangedEvent} or {@link LeaderUnknownEvent}. {@link Leadership#observe} says how late
 * a change is seen.
 */
public final class LeaderObservation implements SmartLifecycle {

    private final LockRegistry registry;
    private final ObserveOptions options;
    private final ApplicationEventPublisher publisher;
    private final Set<String> names = new LinkedHashSet<>();
    private final Map<String, LeaderSubscription> subscriptions = new ConcurrentHashMap<>();
    private boolean running;

    public LeaderObservation(
            LockRegistry registry, ObserveOptions options, ApplicationEventPublisher publisher, Set<String> names) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.options = Objects.requireNonNull(options, "options");
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.names.addAll(names);
    }

    /**
     * Who leads {@code name} on the server right now (one call), whichever instance, or empty when nobody does.
     *
     * @throws IllegalArgumentException if the name is not a valid key for the backend
     * @throws dev.distlock.core.LockBackendException when the backend could not tell
     */
    public Optional<Leader> leaderOf(String name) {
        return Leadership.leaderOf(registry, name);
    }

    /**
     * Follows the leader of {@code name} from now on, or from start-up when the context has not started yet,
     * publishing its changes. Asking again for a name already observed does nothing.
     *
     * @throws IllegalArgumentException if the name is not a valid key for the backend
     */
    public synchronized void observe(String name) {
        if (names.add(name) && running) {
            begin(name);
        }
    }

    /** The names observed. */
    public synchronized Set<String> names() {
        return Set.copyOf(names);
    }

    /** The backend the leaders are read from. */
    public String backend() {
        return registry.backend();
    }

    @Override
    public synchronized void start() {
        running = true;
        names.forEach(this::begin);
    }

    @Override
    public synchronized void stop() {
        running = false;
        subscriptions.values().forEach(LeaderSubscription::close);
        subscriptions.clear();
    }

    @Override
    public synchronized boolean isRunning() {
        return running;
    }

    private void begin(String name) {
        subscriptions.computeIfAbsent(name, n -> Leadership.observe(registry, n, new Publisher(), options));
    }

    /** Turns one subscription's calls into application events. */
    private final class Publisher implements LeaderObserver {

        @Override
        public void leaderChanged(String name, Optional<Leader> leader) {
            publisher.publishEvent(new LeaderChangedEvent(LeaderObservation.this, name, leader));
        }

        @Override
        public void leaderUnknown(String name, RuntimeException cause) {
            publisher.publishEvent(new LeaderUnknownEvent(LeaderObservation.this, name, cause));
        }
    }

    @Override
    public String toString() {
        return "LeaderObservation[" + registry.backend() + ", " + names() + "]";
    }
}
