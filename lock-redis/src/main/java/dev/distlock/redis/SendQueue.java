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
 * The lock commands of one connection on their way out, batched the way Nagle's algorithm
 * batches segments: a command goes out at once when none of this queue's commands is in flight;
 * otherwise it waits, and everything that waited goes out together, in one write, when the last
 * reply in flight arrives. Concurrent lock calls then cost the client one write and the server
 * one read for a batch instead of one each per command, which on a busy host is most of a lock
 * call's CPU. A lone caller never waits: nothing of its own is in flight when it sends.
 *
 * <p>Commands leave in the order they were sent, so a release sent after an acquire reaches the
 * server after it. No command is held back for long: once the batch in flight has been out for
 * {@link #MAX_HOLD_NANOS}, new commands go at once, and a caller waiting for its reply sends
 * whatever waits after that long ({@link PendingReply}), so a server that stops answering costs
 * no caller more than it would without the queue.
 *
 * <p>Only this queue's commands count as in flight; other traffic on a shared connection neither
 * waits here nor holds anything back.
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
     * @param writer writes a batch to the connection in order, or completes each of its commands
     *     exceptionally; it must not block
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
     * Sends {@code command} now, whatever is in flight, with everything that waits before it: for
     * commands that someone else may be waiting on, such as a release.
     */
    AsyncCommand<byte[], byte[], Object> sendNow(AsyncCommand<byte[], byte[], Object> command) {
        waiting.add(command);
        sendWaiting();
        return command;
    }

    /** Sends everything that waits, whatever is in flight: the replies it waited for are late. */
    void sendWaiting() {
        urgent = true;
        write();
    }

    /**
     * Writes all that waits as one batch; one thread at a time, so batches keep the order of
     * sending. A command added while another thread wrote is picked up by that thread if it is
     * urgent or nothing is in flight, else by the reply that next empties the flight.
     */
    private void write() {
        while (writing.compareAndSet(false, true)) {
            // Cleared before the queue is read: an urgent command added after this is either
            // in the batch or seen by the check below.
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
