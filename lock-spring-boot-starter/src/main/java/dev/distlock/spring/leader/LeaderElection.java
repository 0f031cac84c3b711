package dev.distlock.spring.leader;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.leader.CampaignOptions;
import dev.distlock.core.leader.Leadership;
import dev.distlock.core.leader.LeadershipListener;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * This application's campaigns for leadership, one {@link Leadership} per name on the application's
 * {@link LockRegistry}, for the names of {@code distributed-lock.leadership.names} and of the {@link LeaderOnly}
 * methods. Campaigns run from the context's start until its stop. They stop first on shutdown, so a leader resigns
 * before the registry closes. Grants and revocations are published as {@link LeadershipGrantedEvent} and
 * {@link LeadershipRevokedEvent}. Each term publishes the options' value ({@code distributed-lock.leadership.value})
 * for every instance to read ({@link LeaderObservation}).
 */
public final class LeaderElection implements SmartLifecycle {

    /** The longest start-up waits for free names to be granted. */
    private static final Duration START_WAIT = Duration.ofSeconds(2);

    private final LockRegistry registry;
    private final CampaignOptions options;
    private final ApplicationEventPublisher publisher;
    private final Set<String> names = new LinkedHashSet<>();
    private final Map<String, Leadership> campaigns = new ConcurrentHashMap<>();
    private boolean running;

    public LeaderElection(
            LockRegistry registry, CampaignOptions options, ApplicationEventPublisher publisher, Set<String> names) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.options = Objects.requireNonNull(options, "options");
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.names.addAll(names);
    }

    /**
     * Campaigns for {@code name} from now on, or from start-up when the context has not started yet.
     * Asking again for a name already campaigned for does nothing.
     *
     * @throws IllegalArgumentException if the name is not a valid key for the backend
     */
    public synchronized void campaign(String name) {
        if (names.add(name) && running) {
            begin(name);
        }
    }

    /** The names this instance campaigns for (or will from start-up). */
    public synchronized Set<String> names() {
        return Set.copyOf(names);
    }

    /** True while this instance leads {@code name} and its lease is not known to be lost. */
    public boolean isLeader(String name) {
        Leadership leadership = campaigns.get(name);
        return leadership != null && leadership.isLeader();
    }

    /** The fencing token of this instance's current term for {@code name}, or empty when it does not lead. */
    public Optional<FencingToken> epoch(String name) {
        Leadership leadership = campaigns.get(name);
        return leadership == null ? Optional.empty() : leadership.epoch();
    }

    /**
     * Gives up the current term for {@code name}, if this instance leads it. The revoked event is published and the
     * name released, so a waiting instance takes over. This one campaigns again after
     * {@code distributed-lock.leadership.rejoin-delay}.
     */
    public void resign(String name) {
        Leadership leadership = campaigns.get(name);
        if (leadership != null) {
            leadership.resign();
        }
    }

    /**
     * A task that runs {@code task} when called while this instance leads {@code name}, and does nothing otherwise.
     * It campaigns for the name from its first call.
     */
    public Runnable whileLeader(String name, Runnable task) {
        Objects.requireNonNull(task, "task");
        return () -> {
            campaign(name);
            if (isLeader(name)) {
                task.run();
            }
        };
    }

    @Override
    public synchronized void start() {
        running = true;
        // Asked before the campaigns begin, because a name this instance is about to lead then already has a holder
        // (this instance) while its leadership is not yet granted.
        List<String> free = names.stream().filter(this::free).toList();
        names.forEach(this::begin);
        awaitLeadership(free);
    }

    /**
     * Waits (at most {@link #START_WAIT} in all) until the campaigns for names nobody held at
     * start-up are granted, so that work scheduled right after start-up already leads. A name held
     * elsewhere, or a backend that cannot tell, is not waited for.
     */
    private void awaitLeadership(List<String> free) {
        long deadline = System.nanoTime() + START_WAIT.toNanos();
        for (String name : free) {
            Leadership leadership = campaigns.get(name);
            if (leadership == null) {
                continue;
            }
            while (!leadership.isLeader() && System.nanoTime() - deadline < 0) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private boolean free(String name) {
        try {
            return registry.holderOf(name).isEmpty();
        } catch (RuntimeException e) { // unsupported or unreachable, so the campaign goes on without waiting
            return false;
        }
    }

    @Override
    public synchronized void stop() {
        running = false;
        campaigns.values().forEach(Leadership::close);
        campaigns.clear();
    }

    @Override
    public synchronized boolean isRunning() {
        return running;
    }

    private void begin(String name) {
        campaigns.computeIfAbsent(name, n -> Leadership.campaign(registry, n, new Publisher(n), options));
    }

    /** Turns one campaign's callbacks into application events. */
    private final class Publisher implements LeadershipListener {

        private final String name;

        Publisher(String name) {
            this.name = name;
        }

        @Override
        public void granted(FencingToken epoch) {
            granted(epoch, Optional.empty());
        }

        @Override
        public void granted(FencingToken epoch, Optional<String> value) {
            publisher.publishEvent(new LeadershipGrantedEvent(LeaderElection.this, name, epoch, value));
        }

        @Override
        public void revoked(FencingToken epoch) {
            publisher.publishEvent(new LeadershipRevokedEvent(LeaderElection.this, name, epoch));
        }
    }

    @Override
    public String toString() {
        return "LeaderElection[" + registry.backend() + ", " + campaigns.keySet() + "]";
    }
}
