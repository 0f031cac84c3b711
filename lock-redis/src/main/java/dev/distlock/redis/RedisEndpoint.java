package dev.distlock.redis;

import dev.distlock.core.LockBackendException;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One Redis deployment (a server, or a Cluster) behind a connection factory, running the lock
 * scripts. With Lettuce it keeps one connection from the factory for its whole life (the
 * factory's shared native connection unless the factory hands out dedicated ones), sends every
 * script asynchronously, in batches while others are in flight ({@link SendQueue}), and bounds
 * every wait itself, whatever the client's command timeout; it
 * loads the scripts at the first connection and after every reconnect or topology change, so no
 * lock operation pays a NOSCRIPT round trip. Other clients run the scripts synchronously with
 * their own timeout.
 */
final class RedisEndpoint implements AutoCloseable {

    private final RedisConnectionFactory factory;
    private final boolean ownsFactory;
    private final String address;
    private final boolean lettuce;
    private final ClientEvents events;
    private final CompletableFuture<?> firstLoad;
    private final SendQueue queue = new SendQueue(this::write);
    private volatile CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> connection;
    private RedisConnection springConnection;
    private boolean closed;

    RedisEndpoint(RedisConnectionFactory factory, boolean ownsFactory) {
        this.factory = factory;
        this.ownsFactory = ownsFactory;
        this.address = RedisAddress.describe(factory);
        this.lettuce = factory instanceof LettuceConnectionFactory;
        this.events = new ClientEvents(factory, this::reloadScripts);
        this.firstLoad = lettuce
                ? CompletableFuture.allOf(loadScripts().toArray(CompletableFuture[]::new))
                : CompletableFuture.completedFuture(null);
    }

    String address() {
        return address;
    }

    /**
     * Waits until {@code deadlineNanos} at most for the first connection and script load, so that the first
     * lock operation is not spent connecting; a server that is down is fine.
     */
    void awaitReady(long deadlineNanos) {
        try {
            firstLoad.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // not reachable now: the scripts are loaded when the connection comes up
        }
    }

    /** True when {@link #send} returns at once (Lettuce); other clients run the script on the calling thread. */
    boolean sendsWithoutBlocking() {
        return lettuce;
    }

    boolean isCluster() {
        return factory instanceof LettuceConnectionFactory l && l.isClusterAware();
    }

    /** Called on every connection event of the client (disconnect, reconnect, failed reconnect). */
    void onConnectionEvent(Runnable listener) {
        events.onAnyEvent(listener);
    }

    /**
     * Sends {@code call} without waiting for its reply; never blocks, not even while connecting.
     * With Lettuce it goes at once, with any calls that wait in the {@link SendQueue} before it.
     */
    <R> PendingReply<R> send(ScriptCall<R> call) {
        return send(call, false);
    }

    /**
     * Like {@link #send}, but with Lettuce the call may wait for the replies in flight and go out
     * with other calls in one batch: for a first acquisition attempt, which nobody else waits on,
     * and the release of a plain lock. Attempts sent because a key was released go at once.
     */
    <R> PendingReply<R> sendBatched(ScriptCall<R> call) {
        return send(call, true);
    }

    private <R> PendingReply<R> send(ScriptCall<R> call, boolean batched) {
        long sentAt = System.nanoTime();
        CompletableFuture<Object> answer;
        try {
            if (lettuce) {
                AsyncCommand<byte[], byte[], Object> command =
                        command(CommandType.EVALSHA, call.script().sha1Bytes(), call);
                answer = batched ? queue.send(command) : queue.sendNow(command);
            } else {
                answer = CompletableFuture.completedFuture(runBlocking(call));
            }
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(failed(call, e));
        }
        return new PendingReply<>(this, call, sentAt, answer);
    }

    /**
     * {@code WAIT replicas timeout} on the lock connection, behind everything sent on it so far:
     * how many replicas acknowledged those writes (Lettuce, one server).
     */
    @SuppressWarnings("unchecked")
    long waitForReplicas(int replicas, long timeoutMillis, String key) throws InterruptedException {
        CommandArgs<byte[], byte[]> args =
                new CommandArgs<>(ByteArrayCodec.INSTANCE).add(replicas).add(timeoutMillis);
        AsyncCommand<byte[], byte[], Object> command = new AsyncCommand<>(new Command<>(
                CommandType.WAIT,
                (CommandOutput<byte[], byte[], Object>)
                        (CommandOutput<byte[], byte[], ?>) new IntegerOutput<>(ByteArrayCodec.INSTANCE),
                args));
        queue.sendNow(command);
        try {
            return (Long) command.get(timeoutMillis + 200, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = PendingReply.unwrap(e);
            throw unreachable(key, "WAIT for " + replicas + " replicas failed: " + cause, cause);
        } catch (java.util.concurrent.TimeoutException e) {
            command.cancel(true);
            throw unreachable(key, "no answer to WAIT within " + (timeoutMillis + 200) + " ms", e);
        }
    }

    /** Sends the script's text with EVAL, for a server that answered NOSCRIPT. */
    CompletableFuture<Object> eval(ScriptCall<?> call) {
        return queue.sendNow(command(CommandType.EVAL, call.script().body(), call));
    }

    /** Sends the calls that wait in the {@link SendQueue} now, whatever is in flight. */
    void sendWaiting() {
        queue.sendWaiting();
    }

    /** {@code EVALSHA <sha1> ..} or {@code EVAL <body> ..}, with the script's keys and arguments. */
    @SuppressWarnings("unchecked")
    private static AsyncCommand<byte[], byte[], Object> command(CommandType type, byte[] script, ScriptCall<?> call) {
        CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE)
                .add(script)
                .add(call.keys().length)
                .addKeys(call.keys())
                .addValues(call.args());
        CommandOutput<byte[], byte[], ?> output = call.script().output() == ScriptOutputType.INTEGER
                ? new IntegerOutput<>(ByteArrayCodec.INSTANCE)
                : new NestedMultiOutput<>(ByteArrayCodec.INSTANCE);
        return new AsyncCommand<>(new Command<>(type, (CommandOutput<byte[], byte[], Object>) output, args));
    }

    /**
     * Writes a batch of the {@link SendQueue} to the connection, once it is connected; a batch
     * that cannot be written fails its commands.
     */
    private void write(List<AsyncCommand<byte[], byte[], Object>> batch) {
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
    private <T> CompletableFuture<T> onConnection(
            Function<RedisClusterAsyncCommands<byte[], byte[]>, RedisFuture<T>> command) {
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
     * PING and SCRIPT LOAD of every script, bounded by {@code timeout}: proves that the server
     * is reachable and runs scripts. On a Cluster the scripts go to every node.
     */
    void verify(Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        try {
            if (!lettuce) {
                try (RedisConnection blocking = factory.getConnection()) {
                    blocking.ping();
                    LockScripts.ALL.forEach(
                            script -> blocking.scriptingCommands().scriptLoad(script.body()));
                }
                return;
            }
            List<CompletableFuture<?>> answers = new ArrayList<>(loadScripts());
            answers.add(onConnection(c -> c.ping()));
            for (CompletableFuture<?> answer : answers) {
                answer.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (java.util.concurrent.TimeoutException e) {
            throw unreachable(null, "no answer to PING and SCRIPT LOAD within " + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unreachable(null, "interrupted while checking the server", e);
        } catch (java.util.concurrent.ExecutionException | RuntimeException e) {
            Throwable cause = PendingReply.unwrap(e);
            throw cause instanceof LockBackendException backend
                    ? backend
                    : unreachable(null, "PING and SCRIPT LOAD failed: " + cause, cause);
        }
    }

    /** Sends SCRIPT LOAD for every script (to every node of a Cluster) without waiting. */
    private List<CompletableFuture<?>> loadScripts() {
        List<CompletableFuture<?>> loads = new ArrayList<>();
        for (LuaScript<?> script : LockScripts.ALL) {
            loads.add(onConnection(c -> c.scriptLoad(script.body())));
        }
        return loads;
    }

    /**
     * Starts connecting unless a connection is up or being made. Connecting blocks (the factory
     * connects synchronously), so it runs on a thread of its own: no caller waits for it longer
     * than its own timeout, and one node that does not answer does not hold up the others.
     */
    @SuppressWarnings("unchecked")
    private synchronized CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> connect(
            CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> seen) {
        if (closed) {
            return CompletableFuture.failedFuture(
                    new LockBackendException("redis", address, null, "the registry is closed", null));
        }
        if (connection != seen || (seen != null && !seen.isDone())) {
            return connection; // being made, or made by another caller meanwhile
        }
        CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> next = new CompletableFuture<>();
        connection = next;
        RedisConnection previous = springConnection;
        springConnection = null;
        Thread connector = new Thread(
                () -> {
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
                                factoryStopped()
                                        // Redis may well run: the application stopped its client, as at shutdown.
                                        ? new LockBackendException(
                                                "redis",
                                                address,
                                                null,
                                                "could not connect: the application stopped its Redis connection factory"
                                                        + " (as during shutdown): " + e.getMessage(),
                                                e)
                                        : unreachable(null, "could not connect: " + e.getMessage(), e));
                    }
                },
                "distlock-redis-connect");
        connector.setDaemon(true);
        connector.start();
        return next;
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

    private Object runBlocking(ScriptCall<?> call) {
        ReturnType type = ReturnType.fromJavaType(
                call.script().output() == io.lettuce.core.ScriptOutputType.INTEGER ? Long.class : List.class);
        try (RedisConnection blocking = factory.getConnection()) {
            byte[][] keysAndArgs = call.keysAndArgs();
            try {
                return blocking.scriptingCommands()
                        .evalSha(call.script().sha1(), type, call.keys().length, keysAndArgs);
            } catch (DataAccessException e) {
                if (String.valueOf(e.getMessage()).contains("NOSCRIPT")) {
                    return blocking.scriptingCommands()
                            .eval(call.script().body(), type, call.keys().length, keysAndArgs);
                }
                throw e;
            }
        }
    }

    /** True when the connection factory is a lifecycle that the application has stopped. */
    private boolean factoryStopped() {
        return factory instanceof SmartLifecycle lifecycle && !lifecycle.isRunning();
    }

    LockBackendException unreachable(String key, String problem, Throwable cause) {
        return new LockBackendException(
                "redis",
                address,
                key,
                problem + ". Check that Redis runs at " + address + " and is reachable from this host.",
                cause);
    }

    LockBackendException failed(ScriptCall<?> call, Throwable error) {
        Throwable cause = PendingReply.unwrap(error);
        if (cause instanceof LockBackendException backend) {
            return backend;
        }
        String message = cause.getClass().getSimpleName() + ": " + cause.getMessage();
        if (cause instanceof RedisCommandExecutionException) {
            return new LockBackendException(
                    "redis", address, call.lockKey(), "Redis refused " + call.script() + ": " + message, cause);
        }
        return unreachable(call.lockKey(), call.script() + " failed: " + message, cause);
    }

    /** After a reconnect or failover the server may have lost its script cache. */
    private void reloadScripts() {
        try {
            loadScripts();
        } catch (RuntimeException e) {
            // the connection went away again; the next activation loads them
        }
    }

    @Override
    public void close() {
        events.close();
        synchronized (this) {
            closed = true;
            if (springConnection != null) {
                springConnection.close();
            }
        }
        if (ownsFactory && factory instanceof LettuceConnectionFactory lettuceFactory) {
            lettuceFactory.destroy();
        }
    }
}
