package dev.distlock.redis;

import dev.distlock.core.LockBackendException;
import io.lettuce.core.protocol.AsyncCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One Redis deployment (a server, or a Cluster) behind a connection factory, running the lock scripts. With Lettuce it
 * keeps one connection ({@link LettuceConnection}) and sends every script asynchronously, in batches while others are
 * in flight ({@link SendQueue}). It bounds every wait itself, whatever the client's command timeout, and keeps the
 * scripts loaded ({@link ScriptLoading}). Other clients run the scripts on the calling thread with their own timeout
 * ({@link BlockingScripts}). {@link RedisErrors} words the errors.
 */
final class RedisEndpoint implements AutoCloseable {

    private final RedisConnectionFactory factory;
    private final boolean ownsFactory;
    private final RedisErrors errors;
    private final LettuceConnection connection; // null for other clients
    private final ScriptLoading scripts;
    private final BlockingScripts blocking;
    private final SendQueue queue;
    private final ClientEvents events;
    private final CompletableFuture<?> firstLoad;

    RedisEndpoint(RedisConnectionFactory factory, boolean ownsFactory) {
        this.factory = factory;
        this.ownsFactory = ownsFactory;
        this.errors = new RedisErrors(RedisAddress.describe(factory));
        boolean lettuce = factory instanceof LettuceConnectionFactory;
        this.connection = lettuce ? new LettuceConnection(factory, errors) : null;
        this.scripts = lettuce ? new ScriptLoading(connection) : null;
        this.blocking = lettuce ? null : new BlockingScripts(factory);
        this.queue = lettuce ? new SendQueue(connection::write) : null;
        this.events = new ClientEvents(factory, lettuce ? scripts::reload : () -> {});
        this.firstLoad = lettuce
                ? CompletableFuture.allOf(scripts.loadAll().toArray(CompletableFuture[]::new))
                : CompletableFuture.completedFuture(null);
    }

    String address() {
        return errors.address();
    }

    /**
     * Waits until {@code deadlineNanos} at most for the first connection and script load, so that the first lock
     * operation is not spent connecting. A server that is down is fine.
     */
    void awaitReady(long deadlineNanos) {
        try {
            firstLoad.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // not reachable now, and the scripts are loaded when the connection comes up
        }
    }

    /**
     * Whether one script may touch both Redis keys. Always on a single server (Sentinel's master included), and on a
     * Cluster when they hash to one hash slot. Unknown deployments behind other clients are not assumed single.
     */
    boolean runsTogether(byte[] first, byte[] second) {
        if (!(factory instanceof LettuceConnectionFactory lettuce)) {
            return false;
        }
        return !lettuce.isClusterAware()
                || io.lettuce.core.cluster.SlotHash.getSlot(first) == io.lettuce.core.cluster.SlotHash.getSlot(second);
    }

    /** True when {@link #send} returns at once (Lettuce). Other clients run the script on the calling thread. */
    boolean sendsWithoutBlocking() {
        return connection != null;
    }

    /** Called on every connection event of the client (disconnect, reconnect, failed reconnect). */
    void onConnectionEvent(Runnable listener) {
        events.onAnyEvent(listener);
    }

    /**
     * Sends {@code call} without waiting for its reply, and never blocks, not even while connecting. With Lettuce it
     * goes at once, with any calls that wait in the {@link SendQueue} before it.
     */
    <R> PendingReply<R> send(ScriptCall<R> call) {
        return send(call, false);
    }

    /**
     * Like {@link #send}, but with Lettuce the call may wait for the replies in flight and go out with other calls in
     * one batch. For a first acquisition attempt, which nobody else waits on, and the release of a plain lock.
     */
    <R> PendingReply<R> sendBatched(ScriptCall<R> call) {
        return send(call, true);
    }

    private <R> PendingReply<R> send(ScriptCall<R> call, boolean batched) {
        long sentAt = System.nanoTime();
        LongSupplier sentAtNanos = () -> sentAt;
        CompletableFuture<Object> answer;
        try {
            if (queue != null) {
                // Handed to the connection once it is made and the batch goes, which may be later than now.
                SentCommand command = ScriptCommands.evalSha(call);
                sentAtNanos = command::sentAtNanos;
                answer = batched ? queue.send(command) : queue.sendNow(command);
            } else {
                answer = CompletableFuture.completedFuture(blocking.run(call));
            }
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(errors.failed(call, e));
        }
        return new PendingReply<>(this, call, sentAtNanos, answer);
    }

    /**
     * {@code WAIT replicas timeout} on the lock connection, behind everything sent on it so far. Returns how many
     * replicas acknowledged those writes (Lettuce, one server).
     */
    long waitForReplicas(int replicas, long timeoutMillis, String key) throws InterruptedException {
        AsyncCommand<byte[], byte[], Object> command = ScriptCommands.waitForReplicas(replicas, timeoutMillis);
        queue.sendNow(command);
        try {
            return (Long) command.get(timeoutMillis + 200, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = PendingReply.unwrap(e);
            throw errors.unreachable(key, "WAIT for " + replicas + " replicas failed: " + cause, cause);
        } catch (TimeoutException e) {
            command.cancel(true);
            throw errors.unreachable(key, "no answer to WAIT within " + (timeoutMillis + 200) + " ms", e);
        }
    }

    /** Sends the script's text with EVAL, for a server that answered NOSCRIPT. */
    CompletableFuture<Object> eval(ScriptCall<?> call) {
        return queue.sendNow(ScriptCommands.eval(call));
    }

    /** Sends the calls that wait in the {@link SendQueue} now, whatever is in flight. */
    void sendWaiting() {
        if (queue != null) {
            queue.sendWaiting();
        }
    }

    /**
     * PING and SCRIPT LOAD of every script, bounded by {@code timeout}. It proves that the server is reachable and runs
     * scripts. On a Cluster the scripts go to every node.
     */
    void verify(Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        try {
            if (blocking != null) {
                blocking.verify();
                return;
            }
            List<CompletableFuture<?>> answers = new ArrayList<>(scripts.loadAll());
            answers.add(connection.run(c -> c.ping()));
            for (CompletableFuture<?> answer : answers) {
                answer.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (TimeoutException e) {
            throw errors.unreachable(
                    RedisErrors.NO_KEY, "no answer to PING and SCRIPT LOAD within " + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw errors.unreachable(RedisErrors.NO_KEY, "interrupted while checking the server", e);
        } catch (ExecutionException | RuntimeException e) {
            Throwable cause = PendingReply.unwrap(e);
            throw cause instanceof LockBackendException backend
                    ? backend
                    : errors.unreachable(RedisErrors.NO_KEY, "PING and SCRIPT LOAD failed: " + cause, cause);
        }
    }

    LockBackendException unreachable(String key, String problem, Throwable cause) {
        return errors.unreachable(key, problem, cause);
    }

    /** As {@link #unreachable(String, String, Throwable)}, for a problem without an exception. */
    LockBackendException unreachable(String key, String problem) {
        return errors.unreachable(key, problem);
    }

    LockBackendException failed(ScriptCall<?> call, Throwable error) {
        return errors.failed(call, error);
    }

    @Override
    public void close() {
        events.close();
        if (connection != null) {
            connection.close();
        }
        if (ownsFactory && factory instanceof LettuceConnectionFactory lettuceFactory) {
            lettuceFactory.destroy();
        }
    }
}
