package dev.distlock.redis;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.protocol.AsyncCommand;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The one Lettuce connection of an endpoint, taken from the connection factory (the factory's shared native connection
 * unless it hands out dedicated ones) and kept until closed. A lost connection is taken again on a thread of its own.
 * Nothing here blocks the caller.
 */
final class LettuceConnection implements AutoCloseable {

    private final RedisConnectionFactory factory;
    private final RedisErrors errors;
    private volatile CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> connection;
    private RedisConnection springConnection;
    private boolean closed;

    LettuceConnection(RedisConnectionFactory factory, RedisErrors errors) {
        this.factory = factory;
        this.errors = errors;
    }

    /**
     * Writes a batch of the {@link SendQueue} to the connection once it is connected. A batch that cannot be written
     * fails its commands.
     */
    void write(List<AsyncCommand<byte[], byte[], Object>> batch) {
        CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> current = connection;
        RedisClusterAsyncCommands<byte[], byte[]> up = connected(current);
        if (up != null) {
            dispatch(stateful(up), batch);
            return;
        }
        connect(current).whenComplete((commands, error) -> {
            if (error != null) {
                batch.forEach(command -> command.completeExceptionally(error));
            } else {
                dispatch(stateful(commands), batch);
            }
        });
    }

    private static void dispatch(
            StatefulConnection<byte[], byte[]> connection, List<AsyncCommand<byte[], byte[], Object>> batch) {
        for (AsyncCommand<byte[], byte[], Object> command : batch) {
            if (command instanceof SentCommand sent) {
                sent.sending();
            }
        }
        try {
            if (batch.size() == 1) {
                connection.dispatch(batch.get(0));
            } else {
                connection.dispatch(batch);
            }
        } catch (RuntimeException e) {
            batch.forEach(command -> command.completeExceptionally(e));
        }
    }

    /** Runs {@code command} on the connection now, or once it is connected. */
    <T> CompletableFuture<T> run(Function<RedisClusterAsyncCommands<byte[], byte[]>, RedisFuture<T>> command) {
        CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> current = connection;
        RedisClusterAsyncCommands<byte[], byte[]> up = connected(current);
        if (up != null) {
            return command.apply(up).toCompletableFuture();
        }
        return connect(current).thenCompose(commands -> command.apply(commands));
    }

    /** The connection {@code current} holds if it is made and open, else null. */
    private static RedisClusterAsyncCommands<byte[], byte[]> connected(
            CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> current) {
        if (current == null || !current.isDone() || current.isCompletedExceptionally()) {
            return null;
        }
        RedisClusterAsyncCommands<byte[], byte[]> commands = current.join();
        return stateful(commands) instanceof RedisChannelHandler<?, ?> handler && handler.isClosed() ? null : commands;
    }

    /**
     * Starts connecting unless a connection is up or being made. The factory connects synchronously, so this runs on a
     * thread of its own. No caller waits for it longer than its own timeout, and one node that does not answer does not
     * hold up the others.
     */
    private synchronized CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> connect(
            CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> seen) {
        if (closed) {
            return CompletableFuture.failedFuture(errors.closed());
        }
        if (connection != seen || (seen != null && !seen.isDone())) {
            return connection; // being made, or made by another caller meanwhile
        }
        CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> next = new CompletableFuture<>();
        connection = next;
        RedisConnection previous = springConnection;
        springConnection = null;
        Thread connector = new Thread(() -> open(previous, next), "distlock-redis-connect");
        connector.setDaemon(true);
        connector.start();
        return next;
    }

    @SuppressWarnings("unchecked")
    private void open(RedisConnection previous, CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> next) {
        if (previous != null) {
            previous.close();
        }
        try {
            RedisConnection opened = factory.getConnection();
            synchronized (this) {
                if (closed) {
                    opened.close();
                } else {
                    springConnection = opened;
                }
            }
            // spring-data-redis opens its Lettuce connections with a byte-array codec.
            next.complete((RedisClusterAsyncCommands<byte[], byte[]>) opened.getNativeConnection());
        } catch (RuntimeException e) {
            next.completeExceptionally(
                    errors.couldNotConnect(e, factory instanceof SmartLifecycle lifecycle && !lifecycle.isRunning()));
        }
    }

    private static StatefulConnection<byte[], byte[]> stateful(RedisClusterAsyncCommands<byte[], byte[]> commands) {
        if (commands instanceof RedisAsyncCommands<byte[], byte[]> single) {
            return single.getStatefulConnection();
        }
        if (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
            return cluster.getStatefulConnection();
        }
        throw new IllegalStateException(
                "Unexpected Lettuce connection " + commands.getClass().getName());
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (springConnection != null) {
            springConnection.close();
        }
    }
}
