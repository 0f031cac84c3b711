package dev.distlock.redis;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.Interrupts;
import io.lettuce.core.RedisNoScriptException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * The reply to come for one {@link ScriptCall}. A server that answers NOSCRIPT (its script cache
 * was lost between two loads) gets the script once more with EVAL, within the same wait.
 *
 * @param <R> what the script's reply means
 */
final class PendingReply<R> {

    private final RedisEndpoint endpoint;
    private final ScriptCall<R> call;
    private final LongSupplier sentAtNanos;
    private volatile CompletableFuture<Object> answer;
    private boolean resent;
    private Runnable onDone;

    PendingReply(RedisEndpoint endpoint, ScriptCall<R> call, long sentAtNanos, CompletableFuture<Object> answer) {
        this(endpoint, call, () -> sentAtNanos, answer);
    }

    /** @param sentAtNanos when the call was handed to the connection, read once the reply is there */
    PendingReply(
            RedisEndpoint endpoint, ScriptCall<R> call, LongSupplier sentAtNanos, CompletableFuture<Object> answer) {
        this.endpoint = endpoint;
        this.call = call;
        this.sentAtNanos = sentAtNanos;
        this.answer = answer;
    }

    /**
     * {@link System#nanoTime()} just before the script was handed to the connection (a resend after NOSCRIPT keeps the
     * first one's). Read it once the reply is there.
     */
    long sentAtNanos() {
        return sentAtNanos.getAsLong();
    }

    RedisEndpoint endpoint() {
        return endpoint;
    }

    /** The reply, waiting at most {@code timeout}. Throws a {@link LockBackendException} when none came. */
    R await(Duration timeout) {
        try {
            return awaitUntil(System.nanoTime() + timeout.toNanos(), timeout);
        } catch (InterruptedException e) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            throw new LockBackendException(
                    "redis", endpoint.address(), call.lockKey(), "interrupted while waiting for Redis", e);
        }
    }

    /**
     * As {@link #await(Duration)}, for calls that must reach the server whatever the interrupt flag says, such as a
     * release. An interrupt neither cancels the call, which may still wait in the {@link SendQueue}, nor cuts the wait
     * short. The flag is set again once the reply is there or the wait is over.
     */
    R awaitUninterruptibly(Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        return Interrupts.deferred(() -> awaitUntil(end, timeout));
    }

    /** The reply, waiting until {@code end}. {@code timeout} is the whole wait, for the error. */
    private R awaitUntil(long end, Duration timeout) throws InterruptedException {
        while (true) {
            CompletableFuture<Object> current = answer;
            try {
                return call.script().read(answer(current, end));
            } catch (ExecutionException e) {
                if (!resendIfNoScript(e.getCause())) {
                    throw endpoint.failed(call, e.getCause());
                }
            } catch (TimeoutException e) {
                current.cancel(true);
                throw endpoint.unreachable(
                        call.lockKey(), "no answer to " + call.script() + " within " + timeout.toMillis() + " ms", e);
            }
        }
    }

    /**
     * Waits for {@code current} until {@code end}. A call that may still wait in the
     * {@link SendQueue} behind replies that are late is sent after {@link SendQueue#MAX_HOLD_NANOS}.
     */
    private Object answer(CompletableFuture<Object> current, long end)
            throws ExecutionException, TimeoutException, InterruptedException {
        if (end - System.nanoTime() > SendQueue.MAX_HOLD_NANOS && !current.isDone()) {
            try {
                return current.get(SendQueue.MAX_HOLD_NANOS, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                endpoint.sendWaiting();
            }
        }
        return current.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** True once the reply (or a failure) is there. Then {@link #await} returns at once. */
    boolean isDone() {
        CompletableFuture<Object> current = answer;
        if (!current.isDone()) {
            return false;
        }
        if (current.isCompletedExceptionally()) {
            try {
                current.join();
            } catch (CompletionException | java.util.concurrent.CancellationException e) {
                return !resendIfNoScript(e.getCause());
            }
        }
        return true;
    }

    /** Runs {@code listener} when the reply (or a failure) arrives, again after a resend. */
    void whenDone(Runnable listener) {
        CompletableFuture<Object> current;
        synchronized (this) {
            onDone = listener;
            current = answer;
        }
        // Outside the monitor, as a reply already in runs the listener here, and a virtual thread blocking in a monitor
        // pins its carrier (before JDK 24).
        current.whenComplete((value, error) -> listener.run());
    }

    /** Cancels the wait for a reply nobody needs any more. */
    void abandon() {
        answer.cancel(false);
    }

    private boolean resendIfNoScript(Throwable error) {
        synchronized (this) {
            if (resent || !(unwrap(error) instanceof RedisNoScriptException)) {
                return false;
            }
            resent = true;
        }
        // Sent outside the monitor, as writing may wait for the client's own lock.
        CompletableFuture<Object> again = endpoint.eval(call);
        Runnable listener;
        synchronized (this) {
            answer = again;
            listener = onDone;
        }
        if (listener != null) {
            again.whenComplete((value, e) -> listener.run());
        }
        return true;
    }

    static Throwable unwrap(Throwable error) {
        Throwable current = error;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }
}
