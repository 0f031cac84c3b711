package dev.distlock.redis;

import io.lettuce.core.protocol.AsyncCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The lock commands of one connection on their way out, batched as Nagle's algorithm batches segments. A command goes
 * out at once when none of this queue's commands is in flight. Otherwise it waits, and everything that waited goes out
 * in one write when the last reply in flight arrives. Commands leave in the order they were sent, and none is held back
 * longer than {@link #MAX_HOLD_NANOS}. docs/internals/backends.md explains the design.
 */
final class SendQueue {

    /** The longest a command waits behind replies that have not come. */
    static final long MAX_HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final Queue<AsyncCommand<byte[], byte[], Object>> waiting = new ConcurrentLinkedQueue<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicBoolean writing = new AtomicBoolean();
    private final Consumer<List<AsyncCommand<byte[], byte[], Object>>> writer;
    private final LongSupplier nanoTime;
    private volatile long lastWriteNanos;
    /** Set when something waiting must go now, whatever is in flight. */
    private volatile boolean urgent;

    /**
     * @param writer writes a batch to the connection in order, or completes each of its commands exceptionally. It must
     *     not block
     */
    SendQueue(Consumer<List<AsyncCommand<byte[], byte[], Object>>> writer) {
        this(writer, System::nanoTime);
    }

    /** As {@link #SendQueue(Consumer)}, reading the time from {@code nanoTime} (a test's clock). */
    SendQueue(Consumer<List<AsyncCommand<byte[], byte[], Object>>> writer, LongSupplier nanoTime) {
        this.writer = writer;
        this.nanoTime = nanoTime;
    }

    /** Sends {@code command} now, or with the next batch if commands of this queue are in flight. */
    AsyncCommand<byte[], byte[], Object> send(AsyncCommand<byte[], byte[], Object> command) {
        waiting.add(command);
        if (inFlight.get() == 0 || nanoTime.getAsLong() - lastWriteNanos > MAX_HOLD_NANOS) {
            write();
        }
        return command;
    }

    /**
     * Sends {@code command} now, whatever is in flight, with everything that waits before it. For commands that someone
     * else may be waiting on, such as a release.
     */
    AsyncCommand<byte[], byte[], Object> sendNow(AsyncCommand<byte[], byte[], Object> command) {
        waiting.add(command);
        sendWaiting();
        return command;
    }

    /** Sends everything that waits, whatever is in flight, as the replies it waited for are late. */
    void sendWaiting() {
        urgent = true;
        write();
    }

    /**
     * Writes all that waits as one batch, one thread at a time so that batches keep the order of sending. A command
     * added while another thread wrote is picked up by that thread if it is urgent or nothing is in flight, else by the
     * reply that next empties the flight.
     */
    private void write() {
        while (writing.compareAndSet(false, true)) {
            // Cleared before the queue is read, so an urgent command added after this is in the batch or seen below.
            urgent = false;
            List<AsyncCommand<byte[], byte[], Object>> batch = null;
            for (AsyncCommand<byte[], byte[], Object> next; (next = waiting.poll()) != null; ) {
                if (batch == null) {
                    batch = new ArrayList<>(4);
                }
                batch.add(next);
                inFlight.incrementAndGet();
                next.whenComplete((reply, error) -> landed());
            }
            if (batch != null) {
                lastWriteNanos = nanoTime.getAsLong();
                writer.accept(batch);
            }
            writing.set(false);
            if (waiting.isEmpty() || (inFlight.get() > 0 && !urgent)) {
                return;
            }
        }
    }

    private void landed() {
        if (inFlight.decrementAndGet() == 0 && !waiting.isEmpty()) {
            write();
        }
    }
}
