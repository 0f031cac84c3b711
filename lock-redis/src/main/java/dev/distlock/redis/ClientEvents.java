package dev.distlock.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ConnectionEvent;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import reactor.core.Disposable;

/**
 * What the Lettuce client of a connection factory reports about its connections: a connection
 * (re)activated or a Cluster topology changed (the server may have lost its scripts), and any
 * connection event (waiters check the server again). Other clients report nothing.
 */
final class ClientEvents implements AutoCloseable {

    private final Disposable subscription;
    private volatile Runnable onAnyEvent = () -> {};

    ClientEvents(RedisConnectionFactory factory, Runnable onActivated) {
        AbstractRedisClient client =
                factory instanceof LettuceConnectionFactory lettuce ? lettuce.getNativeClient() : null;
        this.subscription = client == null
                ? null
                : client.getResources().eventBus().get().subscribe(event -> {
                    if (event instanceof ConnectionActivatedEvent || event instanceof ClusterTopologyChangedEvent) {
                        onActivated.run();
                    }
                    if (event instanceof ConnectionEvent) {
                        onAnyEvent.run();
                    }
                });
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
}
