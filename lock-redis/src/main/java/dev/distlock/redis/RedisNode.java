package dev.distlock.redis;

import dev.distlock.core.LockBackendException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisNode.NodeType;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import reactor.core.Disposable;

/**
 * One Redis deployment behind a connection factory (a server, or a Cluster), running the lock
 * scripts. With Lettuce the scripts are sent asynchronously and every call is bounded by its own
 * timeout, whatever the application's command timeout is, so a dead or frozen server surfaces as
 * {@link LockBackendException} in time. Other clients run them synchronously with their own timeout.
 */
final class RedisNode implements AutoCloseable {

    private final RedisConnectionFactory factory;
    private final boolean ownsFactory;
    private final String address;
    private final int port;
    private final Disposable eventSubscription;
    private volatile Runnable onConnectionEvent = () -> {};
    private volatile long lastReconnectFailureNanos;
    private volatile Throwable lastReconnectFailure;

    RedisNode(RedisConnectionFactory factory, boolean ownsFactory) {
        this.factory = factory;
        this.ownsFactory = ownsFactory;
        this.address = describe(factory);
        this.port = factory instanceof LettuceConnectionFactory lettuce && !lettuce.isClusterAware()
                ? lettuce.getPort()
                : -1;
        this.eventSubscription = watchConnectionEvents(factory);
    }

    String address() {
        return address;
    }

    boolean isCluster() {
        return factory instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware();
    }

    /** Called on every connection event of the client (disconnect, reconnect, failed reconnect). */
    void onConnectionEvent(Runnable listener) {
        this.onConnectionEvent = listener;
    }

    /**
     * Throws when a reconnect to this (single) server failed after {@code sinceNanos}: a waiter
     * then reports the server unreachable instead of waiting for a message that cannot come.
     */
    void failIfReconnectFailedSince(long sinceNanos, String key) {
        Throwable failure = lastReconnectFailure;
        if (failure != null && lastReconnectFailureNanos - sinceNanos > 0) {
            throw unreachable(key, "lost the connection while waiting and could not reconnect: " + failure, failure);
        }
    }

    /** Runs {@code script} and waits at most {@code timeout} for its answer. */
    Object run(LockScripts script, String key, List<byte[]> keys, List<byte[]> args, Duration timeout) {
        return start(script, key, keys, args).await(timeout);
    }

    /** Sends {@code script} without waiting for the answer. */
    Call start(LockScripts script, String key, List<byte[]> keys, List<byte[]> args) {
        RedisConnection connection;
        try {
            connection = factory.getConnection();
        } catch (DataAccessException | IllegalStateException e) {
            return new Call(
                    CompletableFuture.failedFuture(unreachable(key, "could not connect: " + e.getMessage(), e)),
                    System.nanoTime(),
                    key,
                    script);
        }
        long sentAt = System.nanoTime();
        return new Call(send(connection, script, key, keys, args), sentAt, key, script);
    }

    private CompletableFuture<Object> send(
            RedisConnection connection, LockScripts script, String key, List<byte[]> keys, List<byte[]> args) {
        byte[][] keyArray = keys.toArray(new byte[0][]);
        byte[][] argArray = args.toArray(new byte[0][]);
        ScriptOutputType output = script == LockScripts.ACQUIRE ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER;
        try {
            Object nativeConnection = connection.getNativeConnection();
            if (nativeConnection instanceof RedisClusterAsyncCommands<?, ?> commands) {
                return startAsync(bytes(commands), script, key, output, keyArray, argArray);
            }
            return CompletableFuture.completedFuture(runBlocking(connection, script, key, keyArray, argArray));
        } catch (LockBackendException e) {
            return CompletableFuture.failedFuture(e);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(failed(key, script, e));
        } finally {
            connection.close();
        }
    }

    /** A script sent to Redis: its answer to come, and when it was sent. */
    final class Call {

        private final CompletableFuture<Object> answer;
        private final long sentAtNanos;
        private final String key;
        private final LockScripts script;

        private Call(CompletableFuture<Object> answer, long sentAtNanos, String key, LockScripts script) {
            this.answer = answer;
            this.sentAtNanos = sentAtNanos;
            this.key = key;
            this.script = script;
        }

        /** {@link System#nanoTime()} just before the script was handed to the connection. */
        long sentAtNanos() {
            return sentAtNanos;
        }

        /** The answer, waiting at most {@code timeout}; a {@link LockBackendException} when none came. */
        Object await(Duration timeout) {
            try {
                return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                answer.cancel(true);
                throw unreachable(key, "no answer to " + script + " within " + timeout.toMillis() + " ms", e);
            } catch (ExecutionException e) {
                throw failed(key, script, e.getCause());
            } catch (InterruptedException e) {
                answer.cancel(true);
                Thread.currentThread().interrupt();
                throw new LockBackendException("redis", address, key, "interrupted while waiting for Redis", e);
            }
        }

        /** The answer, or the failure, once it comes; no timeout. */
        CompletableFuture<Object> answer() {
            return answer;
        }
    }

    private CompletableFuture<Object> startAsync(
            RedisClusterAsyncCommands<byte[], byte[]> commands,
            LockScripts script,
            String key,
            ScriptOutputType output,
            byte[][] keys,
            byte[][] args) {
        RedisFuture<Object> evalsha = commands.evalsha(script.sha1(), output, keys, args);
        CompletionStage<Object> answered = evalsha.handle((result, error) -> {
                    if (error == null) {
                        return CompletableFuture.completedFuture(result);
                    }
                    if (unwrap(error) instanceof RedisNoScriptException) {
                        return commands.<Object>eval(script.body(), output, keys, args)
                                .toCompletableFuture();
                    }
                    return CompletableFuture.failedFuture(error);
                })
                .thenCompose(stage -> stage);
        CompletableFuture<Object> result = new CompletableFuture<>();
        answered.whenComplete((value, error) -> {
            if (error == null) {
                result.complete(value);
            } else {
                result.completeExceptionally(failed(key, script, unwrap(error)));
            }
        });
        return result;
    }

    private Object runBlocking(
            RedisConnection connection, LockScripts script, String key, byte[][] keys, byte[][] args) {
        ReturnType type = script == LockScripts.ACQUIRE ? ReturnType.MULTI : ReturnType.INTEGER;
        byte[][] keysAndArgs = new byte[keys.length + args.length][];
        System.arraycopy(keys, 0, keysAndArgs, 0, keys.length);
        System.arraycopy(args, 0, keysAndArgs, keys.length, args.length);
        try {
            return connection.scriptingCommands().evalSha(script.sha1(), type, keys.length, keysAndArgs);
        } catch (DataAccessException e) {
            if (String.valueOf(e.getMessage()).contains("NOSCRIPT")) {
                return connection.scriptingCommands().eval(script.body(), type, keys.length, keysAndArgs);
            }
            throw e;
        }
    }

    LockBackendException unreachable(String key, String problem, Throwable cause) {
        return new LockBackendException(
                "redis",
                address,
                key,
                problem + ". Check that Redis runs at " + address + " and is reachable from this host.",
                cause);
    }

    private LockBackendException failed(String key, LockScripts script, Throwable error) {
        if (error instanceof LockBackendException backend) {
            return backend;
        }
        String message = error.getClass().getSimpleName() + ": " + error.getMessage();
        if (error instanceof io.lettuce.core.RedisCommandExecutionException) {
            return new LockBackendException("redis", address, key, "Redis refused " + script + ": " + message, error);
        }
        return unreachable(key, script + " failed: " + message, error);
    }

    private static Throwable unwrap(Throwable error) {
        Throwable current = error;
        while ((current instanceof java.util.concurrent.CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    @SuppressWarnings("unchecked")
    private static RedisClusterAsyncCommands<byte[], byte[]> bytes(RedisClusterAsyncCommands<?, ?> commands) {
        // spring-data-redis opens its Lettuce connections with a byte-array codec.
        return (RedisClusterAsyncCommands<byte[], byte[]>) commands;
    }

    private Disposable watchConnectionEvents(RedisConnectionFactory factory) {
        if (!(factory instanceof LettuceConnectionFactory lettuce)) {
            return null;
        }
        AbstractRedisClient client = lettuce.getNativeClient();
        if (client == null) {
            return null;
        }
        return client.getResources().eventBus().get().subscribe(event -> {
            if (event instanceof ReconnectFailedEvent failed && concernsThisServer(failed)) {
                lastReconnectFailure = failed.getCause();
                lastReconnectFailureNanos = System.nanoTime();
            }
            if (event instanceof io.lettuce.core.event.connection.ConnectionEvent) {
                onConnectionEvent.run();
            }
        });
    }

    private boolean concernsThisServer(ReconnectFailedEvent event) {
        return port > 0 && event.remoteAddress() instanceof InetSocketAddress remote && remote.getPort() == port;
    }

    private static String describe(RedisConnectionFactory factory) {
        if (factory instanceof LettuceConnectionFactory lettuce) {
            if (lettuce.isClusterAware()) {
                return "cluster "
                        + lettuce.getClusterConfiguration().getClusterNodes().stream()
                                .filter(node -> node.getType() != NodeType.REPLICA)
                                .map(node -> node.getHost() + ":" + node.getPort())
                                .collect(Collectors.joining(","));
            }
            return lettuce.getHostName() + ":" + lettuce.getPort();
        }
        return factory.getClass().getSimpleName();
    }

    @Override
    public void close() {
        if (eventSubscription != null) {
            eventSubscription.dispose();
        }
        if (ownsFactory && factory instanceof LettuceConnectionFactory lettuce) {
            lettuce.destroy();
        }
    }
}
