package dev.distlock.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ConnectionEvent;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import java.net.InetSocketAddress;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import reactor.core.Disposable;

/**
 * What the Lettuce client of a connection factory reports about its connections: a connection
 * (re)activated or a Cluster topology changed (the server may have lost its scripts), any
 * connection event (waiters check the server again), and the last failed reconnect to a single
 * server (waiters report it instead of waiting for a message that cannot come). Other clients
 * report nothing.
 */
final class ClientEvents implements AutoCloseable {

    private final int port;
    private final Disposable subscription;
    private volatile Runnable onAnyEvent = () -> {};
    private volatile long lastReconnectFailureNanos;
    private volatile Throwable lastReconnectFailure;

    ClientEvents(RedisConnectionFactory factory, Runnable onActivated) {
        this.port = factory instanceof LettuceConnectionFactory l && !l.isClusterAware() ? l.getPort() : -1;
        AbstractRedisClient client =
                factory instanceof LettuceConnectionFactory lettuce ? lettuce.getNativeClient() : null;
        this.subscription = client == null
                ? null
                : client.getResources().eventBus().get().subscribe(event -> {
                    if (event instanceof ReconnectFailedEvent failed && concernsThisServer(failed)) {
                        lastReconnectFailure = failed.getCause();
                        lastReconnectFailureNanos = System.nanoTime();
                    }
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

    /** The cause of a reconnect to this single server that failed after {@code sinceNanos}, or null. */
    Throwable reconnectFailedSince(long sinceNanos) {
        Throwable failure = lastReconnectFailure;
        return failure != null && lastReconnectFailureNanos - sinceNanos > 0 ? failure : null;
    }

    private boolean concernsThisServer(ReconnectFailedEvent event) {
        return port > 0 && event.remoteAddress() instanceof InetSocketAddress remote && remote.getPort() == port;
    }

    @Override
    public void close() {
        if (subscription != null) {
            subscription.dispose();
        }
    }
}
