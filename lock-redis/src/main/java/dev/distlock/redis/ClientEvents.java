package dev.distlock.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ConnectionEvent;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import reactor.core.Disposable;

/**
 * What the Lettuce client of a connection factory reports about its connections. An activated connection or a changed
 * Cluster topology means the server may have lost its scripts. Any connection event makes waiters check the server
 * again. Other clients report nothing.
 *
 * <p>Clients that share {@link ClientResources} share one event bus, so each registry hears every other registry's
 * connection events. A burst is gathered for {@link #GATHER} and acted on once, so a server restart costs each registry
 * one script load and one wake-up of its waiters, not one per registry.
 */
final class ClientEvents implements AutoCloseable {

    /** How long events are gathered before the endpoint acts on them, once. */
    static final Duration GATHER = Duration.ofMillis(20);

    private final Disposable subscription;
    private final ScheduledExecutorService scheduler;
    private final Gathered activated;
    private final Gathered any;
    private volatile Runnable onAnyEvent = () -> {};

    ClientEvents(RedisConnectionFactory factory, Runnable onActivated) {
        this(resourcesOf(factory), onActivated);
    }

    /**
     * Events of {@code resources}' bus, acted on by its event executors. {@code resources} is null for a client that
     * reports none.
     */
    private ClientEvents(ClientResources resources, Runnable onActivated) {
        this.scheduler = resources == null ? null : resources.eventExecutorGroup();
        this.activated = new Gathered(onActivated);
        this.any = new Gathered(() -> onAnyEvent.run());
        this.subscription = resources == null
                ? null
                : resources.eventBus().get().subscribe(event -> {
                    if (event instanceof ConnectionActivatedEvent || event instanceof ClusterTopologyChangedEvent) {
                        activated.request();
                    }
                    if (event instanceof ConnectionEvent) {
                        any.request();
                    }
                });
    }

    private static ClientResources resourcesOf(RedisConnectionFactory factory) {
        AbstractRedisClient client =
                factory instanceof LettuceConnectionFactory lettuce ? lettuce.getNativeClient() : null;
        return client == null ? null : client.getResources();
    }

    void onAnyEvent(Runnable listener) {
        this.onAnyEvent = listener;
    }

    @Override
    public void close() {
        if (subscription != null) {
            subscription.dispose();
        }
    }

    /** One action, run once {@link #GATHER} after the first of a burst of requests. */
    private final class Gathered {

        private final Runnable action;
        private final AtomicBoolean pending = new AtomicBoolean();

        Gathered(Runnable action) {
            this.action = action;
        }

        void request() {
            if (!pending.compareAndSet(false, true)) {
                return; // the run already scheduled comes after this event
            }
            try {
                scheduler.schedule(this::run, GATHER.toNanos(), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                run(); // the client's resources are shutting down
            }
        }

        private void run() {
            // Cleared first, so an event during the action asks for a run of its own.
            pending.set(false);
            action.run();
        }
    }
}
